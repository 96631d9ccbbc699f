import Foundation
import Testing
@testable import Cyanotype

// RAW development's demosaic and reduced develop against independent oracles: the ground-truth
// scene of make_dng.py (its Siemens star, by the script's own formula here), a bilinear
// demosaic of that scene computed in the test, and LibRaw's own AHD (dcraw_emu) on noisy data.

@Suite("RAW detail")
struct RAWDetailTests {
    /// make_dng.py's camera: XYZ -> camera (its ColorMatrix1) and linear sRGB -> XYZ.
    static let colorMatrix: [[Double]] = [[0.6722, -0.0635, -0.0963], [-0.4287, 1.2460, 0.2028], [-0.0908, 0.2162, 0.5668]]
    static let srgbToXYZ: [[Double]] = [
        [0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041],
    ]

    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    static func inverse(_ m: [[Double]]) -> [[Double]] {
        let det =
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        func c(_ r: Int, _ k: Int) -> Double {
            let rows = (0..<3).filter { $0 != r }, cols = (0..<3).filter { $0 != k }
            let v = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
            return (r + k) % 2 == 0 ? v : -v
        }
        return (0..<3).map { i in (0..<3).map { j in c(j, i) / det } }
    }

    /// The star of make_dng.py's scene at pixel (x, y): 36 spokes, 0.8 and 0.02 linear grey.
    static func star(_ x: Int, _ y: Int, cx: Int, cy: Int) -> Double {
        let a = atan2(Double(y - cy), Double(x - cx))
        let sector = Int(floor(a / (2 * Double.pi / 36)))
        return ((sector % 2) + 2) % 2 == 0 ? 0.8 : 0.02
    }

    @Test func siemensStarResolvesBetterThanBilinearDemosaicking() throws {
        guard RAWDevelopmentTests.toolsPresent() else { return }
        let (url, info) = try RAWTools.makeDNG("star.dng", ["--width", "640", "--height", "480", "--no-preview"])
        let filter = try #require(CIRAWFilter(imageURL: url))
        filter.boostAmount = 0
        let ours = try RAWTools.render(try #require(filter.outputImage))
        let s = info["star"] as! [String: Any]
        let cx = s["cx"] as! Int, cy = s["cy"] as! Int, r = s["r"] as! Int
        // The develop's scale: the grey patch's developed value over the scene's.
        let grey = RAWTools.patch(info, "grey")
        let k = RAWTools.mean(ours, grey).y / (grey["linear"] as! [Double])[1]
        // Bilinear demosaicking of the star in the test: the white-balanced mosaic of a grey
        // scene holds the scene's value at every site; each missing colour is the mean of
        // that colour's sites in the 3x3 around, then the camera's matrix to sRGB (LibRaw's
        // rgb_cam: the inverse of camera-from-sRGB with its rows normalised to white).
        let a = Self.multiply(Self.colorMatrix, Self.srgbToXYZ)
        let neutral = a.map { $0.reduce(0, +) }
        let inv = Self.inverse(a)
        let toSRGB = (0..<3).map { i in (0..<3).map { j in inv[i][j] * neutral[j] } }
        let cfa = (info["cfa"] as! String) == "RGGB" ? [0, 1, 1, 2] : [2, 1, 1, 0]
        func site(_ x: Int, _ y: Int) -> Int { cfa[(y & 1) * 2 + (x & 1)] }
        var ourError = 0.0, bilinearError = 0.0, n = 0.0
        // The ring between 0.15 and 0.6 of the radius: spokes 2.5 to 10 pixels apart.
        for y in (cy - r)...(cy + r) {
            for x in (cx - r)...(cx + r) {
                let d = Double((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
                guard d >= 0.15 * Double(r), d <= 0.6 * Double(r) else { continue }
                let t = Self.star(x, y, cx: cx, cy: cy)
                var sum = [0.0, 0.0, 0.0], count = [0.0, 0.0, 0.0]
                for dy in -1...1 {
                    for dx in -1...1 {
                        let c = site(x + dx, y + dy)
                        sum[c] += Self.star(x + dx, y + dy, cx: cx, cy: cy)
                        count[c] += 1
                    }
                }
                let camera = (0..<3).map { site(x, y) == $0 ? t : sum[$0] / count[$0] }
                let bilinear = SIMD3((0..<3).map { i in (0..<3).reduce(0.0) { $0 + toSRGB[i][$1] * camera[$1] } }.map { max(0, $0) })
                let i = (y * ours.width + x) * 3
                let developed = SIMD3(Double(ours.rgb[i]), Double(ours.rgb[i + 1]), Double(ours.rgb[i + 2])) / k
                let truth = SIMD3(t, t, t)
                ourError += deltaE2000(developed, truth)
                bilinearError += deltaE2000(bilinear, truth)
                n += 1
            }
        }
        ourError /= n
        bilinearError /= n
        #expect(n > 10000)
        #expect(ourError < 0.75 * bilinearError, "star ring: mean ΔE00 \(ourError) (AHD) against \(bilinearError) (bilinear)")
    }

    @Test(arguments: ["RGGB", "BGGR"])
    func cyanotypesAHDMatchesLibRawsAHDOnNoisyData(cfa: String) throws {
        guard RAWDevelopmentTests.toolsPresent() else { return }
        let (url, _) = try RAWTools.makeDNG("noisy-\(cfa).dng", ["--cfa", cfa, "--noise", "0.01", "--no-preview", "--width", "330", "--height", "250"])
        let file = try RAWFile(.path(url.path), name: "noisy.dng")
        var settings = RAWDevelopSettings()
        settings.ownDemosaic = true
        let ours = try RAWTools.render(CIImage(node: try file.develop(settings, maxPixels: 1 << 30)))
        let reference = try RAWTools.libRawDevelop(url, ["-w", "-o", "1", "-4", "-q", "3", "-H", "0", "-t", "0"])
        #expect(ours.width == reference.width && ours.height == reference.height)
        let mean = meanDeltaE2000(ours, reference)
        #expect(mean < 1, "mean ΔE00 against dcraw_emu's AHD: \(mean)")
    }

    /// A python3 that imports rawpy (PyPI's LibRaw 0.22 wheel; scripts/setup.sh --test).
    static let rawpyPython: String? = {
        var candidates = ["/usr/bin/python3"]
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") { candidates.append("\(dir)/python3") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) && (try? RAWTools.run($0, ["-c", "import rawpy"])) != nil }
    }()

    @Test func neutralDevelopMatchesRawpy() throws {
        guard RAWDevelopmentTests.toolsPresent() else { return }
        guard let python = Self.rawpyPython else {
            Issue.record("rawpy is not importable by any python3 (pip install rawpy; scripts/setup.sh --test): rawpy comparison not run")
            return
        }
        let (url, _) = try RAWTools.makeDNG("rawpy.dng", ["--noise", "0.005", "--no-preview"])
        // rawpy's postprocess with dcraw_emu's settings: camera white balance, sRGB, linear
        // 16-bit, AHD, highlights clipped; written as a 16-bit PPM.
        let script = """
            import rawpy, sys
            r = rawpy.imread(sys.argv[1])
            a = r.postprocess(use_camera_wb=True, output_color=rawpy.ColorSpace.sRGB, gamma=(1, 1), no_auto_bright=True, \
                output_bps=16, demosaic_algorithm=rawpy.DemosaicAlgorithm.AHD, user_flip=0, highlight_mode=rawpy.HighlightMode.Clip)
            h, w, _ = a.shape
            sys.stdout.buffer.write(b"P6\\n%d %d\\n65535\\n" % (w, h) + a.astype(">u2").tobytes())
            """
        let reference = try RAWTools.parsePPM(RAWTools.run(python, ["-c", script, url.path]))
        let filter = try #require(CIRAWFilter(imageURL: url))
        filter.boostAmount = 0
        let ours = try RAWTools.render(try #require(filter.outputImage))
        #expect(ours.width == reference.width && ours.height == reference.height)
        let mean = meanDeltaE2000(ours, reference)
        #expect(mean < 2, "mean ΔE00 against rawpy: \(mean)")
    }

    @Test func aDownscaleOfTheDefaultDevelopUsesTheHalfSizeDevelop() throws {
        guard RAWDevelopmentTests.toolsPresent() else { return }
        let (url, info) = try RAWTools.makeDNG("reduce.dng", ["--no-preview"])
        let filter = try #require(CIRAWFilter(imageURL: url))
        // The default develop (tone curve on): the curve is part of the source, so a quarter-
        // size render reaches it and asks for the half-size develop.
        let image = try #require(filter.outputImage).transformed(by: CGAffineTransform(scaleX: 0.25, y: 0.25), highQualityDownsample: true)
        #expect(!Optimizer.reduceDecodes(image.node).isEmpty)
        // The pixels: the grey patch after the tone curve, against the curve's formula applied
        // to dcraw_emu's half-size develop of the same patch.
        let small = try RAWTools.render(image)
        let half = try RAWTools.libRawDevelop(url, ["-w", "-o", "1", "-4", "-h", "-H", "0", "-t", "0"])
        var grey = RAWTools.patch(info, "grey")
        var halfGrey = grey
        for key in ["x", "y", "w", "h"] {
            grey[key] = (grey[key] as! Int) / 4
            halfGrey[key] = (halfGrey[key] as! Int) / 2
        }
        let linear = RAWTools.mean(half, halfGrey, inset: 2)
        func srgb(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
        func curve(_ v: Double) -> Double {
            let e = srgb(min(1, max(0, v)))
            let c = e - 0.35 * sin(2 * Double.pi * e) / (2 * Double.pi)
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let expected = SIMD3(curve(linear.x), curve(linear.y), curve(linear.z))
        let got = RAWTools.mean(small, grey, inset: 1)
        #expect(deltaE2000(got, expected) < 1, "grey after the curve: \(got), expected \(expected)")
    }
}
