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

    /// Row 26.2: an unchanged JPEG re-saved as JPEG (`apply in.jpg -q 90 -o out.jpg`) with a
    /// turn is re-encoded from its Y'CbCr planes. Every orientation x 4:4:4 / 4:2:2 / 4:2:0 at an
    /// odd size (1001 x 667, so a flip moves the chroma grid), at q90 (4:4:4 by default: planes
    /// to the encoder) and q80 (4:2:0: Y'CbCr rows libjpeg subsamples): Pillow decodes the
    /// output, which must be the source as Pillow turns it upright (`exif_transpose`) at least
    /// as closely as Pillow's own re-save of those upright pixels at that quality and sampling
    /// (a chroma sample misplaced by one pixel costs 9 dB here), mean error under 2 levels at
    /// q90 and 3 at q80, in the default sampling, orientation 1 and the P3 profile kept.
    @Test(.enabled(if: pillowAvailable, "needs Python Pillow and numpy (scripts/setup.sh --test)"))
    func turnedJPEGsResavedFromTheirPlanesAreTheSourceUpright() throws {
        let w = try Workspace()
        try #require(ColorProfiles.displayP3).write(to: w.url("p3.icc"))
        // Smooth colour with sharp coloured blocks (seeded), saved by Pillow with each
        // orientation and sampling.
        _ = try ColorOutput().python(
            w,
            """
            import numpy as np
            from PIL import Image
            rng = np.random.default_rng(26)
            W, H = 1001, 667
            y, x = np.mgrid[0:H, 0:W]
            img = np.stack([128 + 100 * np.sin(x / 37.0), 128 + 100 * np.cos(y / 23.0), (x * 255 // W + y * 255 // H) / 2], -1)
            for _ in range(60):
                x0, y0 = rng.integers(0, W - 60), rng.integers(0, H - 60)
                img[y0:y0 + rng.integers(3, 60), x0:x0 + rng.integers(3, 60)] = rng.integers(0, 256, 3)
            img = np.clip(img, 0, 255).astype(np.uint8)
            icc = open('p3.icc', 'rb').read()
            for o in range(1, 9):
                for s in (0, 1, 2):
                    ex = Image.Exif()
                    ex[0x0112] = o
                    Image.fromarray(img).save(f'src-{o}-{s}.jpg', quality=92, subsampling=s, icc_profile=icc, exif=ex.tobytes())
            """)
        for o in 1...8 {
            for s in 0...2 {
                for q in [90, 80] {
                    let r = try Tool.run(["apply", "src-\(o)-\(s).jpg", "-q", "\(q)", "-o", "out-\(o)-\(s)-\(q).jpg"], in: w.dir)
                    #expect(r.status == 0, "orientation \(o), sampling \(s), q\(q): \(r.stderr)")
                }
            }
        }
        let verdict = try ColorOutput().python(
            w,
            """
            import io
            import numpy as np
            from PIL import Image, ImageOps, ImageCms, JpegImagePlugin
            def psnr(a, b):
                return 10 * np.log10(255 ** 2 / max(((a.astype(np.float64) - b) ** 2).mean(), 1e-9))
            bad, n = [], 0
            for o, s, (q, sampling, most) in [(o, s, v) for o in range(1, 9) for s in (0, 1, 2) for v in ((90, 0, 2), (80, 2, 3))]:
                n += 1
                ref = np.asarray(ImageOps.exif_transpose(Image.open(f'src-{o}-{s}.jpg')).convert('RGB')).astype(np.int32)
                out = Image.open(f'out-{o}-{s}-{q}.jpg')
                got = np.asarray(out.convert('RGB')).astype(np.int32)
                if got.shape != ref.shape:
                    bad.append(f'{o}/{s}/q{q}: {got.shape} vs {ref.shape}')
                    continue
                buf = io.BytesIO()
                Image.fromarray(ref.astype(np.uint8)).save(buf, 'JPEG', quality=q, subsampling=sampling)
                resaved = np.asarray(Image.open(buf).convert('RGB')).astype(np.int32)
                p, r, mae = psnr(got, ref), psnr(resaved, ref), np.abs(got - ref).mean()
                icc = out.info.get('icc_profile')
                desc = ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(icc))).strip() if icc else 'none'
                orient, samp = out.getexif().get(0x0112, 1), JpegImagePlugin.get_sampling(out)
                if not (p >= r - 0.2 and mae < most and desc == 'Display P3' and orient == 1 and samp == sampling):
                    bad.append(f'{o}/{s}/q{q}: psnr {p:.2f} vs re-save {r:.2f}, mean error {mae:.2f}, {desc}, orientation {orient}, sampling {samp}')
            print('; '.join(bad) if bad else f'ok {n}')
            """)
        #expect(verdict == "ok 48", "\(verdict)")
    }

    /// Row 26.2's other cases: a filtered save and a colour-converted one of the same kind of
    /// file still render (exposure +1 EV: the P3 curve's 2x in linear light, by formula; P3 to
    /// sRGB: lcms's conversion through Pillow); a truncated file fails with its typed error and
    /// leaves no output, not even a temporary file.
    @Test(.enabled(if: pillowAvailable, "needs Python Pillow and numpy (scripts/setup.sh --test)"))
    func filteredOrConvertedTurnedJPEGsRenderAndCutFilesFail() throws {
        let w = try Workspace()
        try #require(ColorProfiles.displayP3).write(to: w.url("p3.icc"))
        _ = try ColorOutput().python(
            w,
            """
            import numpy as np
            from PIL import Image
            ex = Image.Exif()
            ex[0x0112] = 6
            icc = open('p3.icc', 'rb').read()
            Image.fromarray(np.full((667, 1001, 3), (120, 90, 60), np.uint8)).save('solid.jpg', quality=95, subsampling=2, icc_profile=icc, exif=ex.tobytes())
            rng = np.random.default_rng(7)
            Image.fromarray(rng.integers(0, 256, (667, 1001, 3), dtype=np.uint8)).save('noisy.jpg', quality=92, icc_profile=icc, exif=ex.tobytes())
            """)
        for (out, args) in [("exposed.jpg", ["--filter", "exposureAdjust ev=1"]), ("srgb.jpg", ["--strip", "icc"])] {
            let r = try Tool.run(["apply", "solid.jpg", "-q", "90", "-o", out] + args, in: w.dir)
            #expect(r.status == 0, "\(out): \(r.stderr)")
        }
        let colours = try ColorOutput().python(
            w,
            """
            import io
            from PIL import Image, ImageCms
            src = Image.open('solid.jpg').convert('RGB').getpixel((500, 300))
            dec = lambda v: v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
            enc = lambda v: 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
            want = [round(255 * enc(2 * dec(c / 255))) for c in src]
            exposed = Image.open('exposed.jpg')
            p3 = ImageCms.ImageCmsProfile(io.BytesIO(Image.open('solid.jpg').info['icc_profile']))
            lcms = ImageCms.profileToProfile(Image.new('RGB', (1, 1), src), p3, ImageCms.createProfile('sRGB'), renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC).getpixel((0, 0))
            srgb = Image.open('srgb.jpg')
            print(*exposed.size, *want, *exposed.convert('RGB').getpixel((300, 500)), *lcms, *srgb.convert('RGB').getpixel((300, 500)), 'icc' if srgb.info.get('icc_profile') else 'none')
            """
        ).split(separator: " ").map(String.init)
        try #require(colours.count == 15, "\(colours)")
        let n = colours.prefix(14).compactMap { Int($0) }
        #expect(n[0] == 667 && n[1] == 1001, "\(colours)")
        #expect(ColorOutput().close(Array(n[5..<8]), Array(n[2..<5]), within: 3), "exposure +1 EV: \(n[5..<8]) vs the formula's \(n[2..<5])")
        #expect(ColorOutput().close(Array(n[11..<14]), Array(n[8..<11]), within: 3), "P3 to sRGB: \(n[11..<14]) vs lcms's \(n[8..<11])")
        #expect(colours[14] == "none")

        let whole = try Data(contentsOf: w.url("noisy.jpg"))
        try whole.prefix(whole.count / 2).write(to: w.url("cut.jpg"))
        let r = try Tool.run(["apply", "cut.jpg", "-q", "90", "-o", "cut-out.jpg"], in: w.dir)
        #expect(r.status != 0)
        #expect(r.stderr.contains("cut.jpg: the file is truncated"), "\(r.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: w.dir.path).filter { $0.contains("cut-out") }
        #expect(left.isEmpty, "\(left)")
    }
}
