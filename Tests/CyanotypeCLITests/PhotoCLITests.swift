import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

/// Issue #26 through the tool: phone and camera files (a profile and an EXIF orientation)
/// come out upright, P3 kept as P3 and Adobe RGB converted to sRGB, checked by Pillow (the
/// orientation with `ImageOps.exif_transpose`, the colour with its lcms2 binding).
@Suite struct PhotoCLI {
    /// A little-endian EXIF (TIFF) block holding only the orientation tag.
    static func exif(orientation: Int) -> Data {
        let entry: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation), 0, 0, 0]
        return Data([0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0] + entry + [0, 0, 0, 0])
    }

    /// Which corners (top-left, top-right, bottom-left, bottom-right) of `file` are red, as
    /// Pillow sees it upright (`exif_transpose`).
    func redCorners(_ w: Workspace, _ file: String) throws -> String {
        try ColorOutput().python(
            w,
            """
            from PIL import Image, ImageOps
            im = ImageOps.exif_transpose(Image.open('\(file)')).convert('RGB')
            W, H = im.size
            print(W, H, *[int(im.getpixel(p)[0] > im.getpixel(p)[1] + 80) for p in [(1, 1), (W - 2, 1), (1, H - 2), (W - 2, H - 2)]])
            """)
    }

    @Test(.enabled(if: pillowAvailable, "needs Python Pillow with ImageCms (scripts/setup.sh --test)"))
    func phoneAndCameraFilesComeOutUprightInTheirColour() throws {
        let w = try Workspace()
        let adobe = try #require(ColorProfiles.rgbProfile(.adobeRGB, transfer: .gamma(563 / 256), description: "Adobe RGB (1998)"))
        for (name, profile, orientation) in [("p3", ColorProfiles.displayP3, 6), ("adobe", adobe, 8), ("adobe5", adobe, 5)] {
            var o = EncodeOptions()
            o.iccProfile = profile
            o.exif = Self.exif(orientation: orientation)
            o.quality = 0.95
            // A red quarter in the stored top-left corner, grey elsewhere.
            try w.picture("\(name).jpg", 64, 48, options: o) { x, y in x < 16 && y < 12 ? [0.9, 0.1, 0.1, 1] : [0.5, 0.5, 0.5, 1] }
            for (out, args) in [("\(name)-small.jpg", ["--max-size", "32"]), ("\(name)-full.png", [])] {
                let r = try Tool.run(["apply", "\(name).jpg", "-o", out] + args, in: w.dir)
                #expect(r.status == 0, "\(r.stderr)")
                // Upright as Pillow turns the input (the output needs no turning: orientation 1).
                let want = try redCorners(w, "\(name).jpg").split(separator: " ").dropFirst(2)
                let got = try redCorners(w, out).split(separator: " ")
                #expect(Array(got.dropFirst(2)) == Array(want), "\(name) -> \(out): \(got) vs \(want)")
                #expect(got.prefix(2) == (args.isEmpty ? ["48", "64"] : ["24", "32"]), "\(name) -> \(out): \(got)")
                let meta = try ColorOutput().python(
                    w,
                    """
                    import io
                    from PIL import Image, ImageCms
                    im = Image.open('\(out)')
                    icc = im.info.get('icc_profile')
                    print(ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(icc))).strip() if icc else 'none', im.getexif().get(0x0112, 1))
                    """)
                // P3 is kept; Adobe RGB is written as sRGB (untagged); the orientation says upright.
                #expect(meta == (name == "p3" ? "Display P3 1" : "none 1"), "\(name) -> \(out): \(meta)")
            }
            // lcms's conversion of the upright file = ours, at (4, 4) of the full-size PNG.
            let lcms = try ColorOutput().python(
                w,
                """
                import io
                from PIL import Image, ImageCms
                from PIL import ImageOps
                im = Image.open('\(name).jpg')
                src = ImageCms.ImageCmsProfile(io.BytesIO(im.info['icc_profile']))
                up = ImageOps.exif_transpose(im).convert('RGB')
                out = ImageCms.profileToProfile(up, src, ImageCms.createProfile('sRGB'), renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
                print(*out.getpixel((4, 4)))
                """
            ).split(separator: " ").compactMap { Int($0) }
            let ours = try ColorOutput().pixel(w, "\(name)-full.png")
            if name != "p3" { #expect(ColorOutput().close(ours, lcms), "\(name): ours \(ours) vs lcms \(lcms)") }
        }
    }
}
