import Cyanotype
import CyanotypeCodecs
import Foundation

// Issue 15's animation target: an animated GIF of 100 frames of 480x270 with a look over every
// frame, against ImageMagick's `convert` doing the same colour operation, and at least 30
// frames a second.

/// 8. GIF in, a colour look on every frame, GIF out (each frame requantised).
struct AnimatedGIFLook: Workload {
    let key = "gif"
    static let frames = 100, width = 480, height = 270

    /// A warm grade as a 3x3 matrix on sRGB-encoded values: ImageMagick's `-color-matrix`
    /// applies it to every frame; ours is the same matrix baked into a 33^3 LUT (a LUT look,
    /// run on sRGB-encoded values, as ImageMagick's matrix is).
    static let matrix: [Float] = [1.08, 0.04, -0.02, 0.02, 1.0, 0.0, -0.03, 0.02, 0.92]

    /// The input: a photo-like picture panning by 2 pixels a frame, 0.04 s per frame, looping.
    static func makeInput(_ url: URL) throws {
        let wide = SyntheticImage(width: width + 2 * frames, height: height).rgba8()
        let e = try FrameEncoder(format: .gif, options: EncodeOptions())
        var frame = [UInt8](repeating: 0, count: width * height * 4)
        let stride = (width + 2 * frames) * 4
        for f in 0..<frames {
            wide.withUnsafeBytes { raw in
                let src = raw.bindMemory(to: UInt8.self)
                for y in 0..<height {
                    for i in 0..<(width * 4) { frame[y * width * 4 + i] = src[y * stride + f * 8 + i] }
                }
            }
            try frame.withUnsafeBufferPointer { try e.add(rgba8: $0, width: width, height: height, hasAlpha: false, delay: 0.04) }
        }
        try e.finish(loopCount: 0).write(to: url)
    }

    func run(_ env: BenchEnvironment) throws -> [Row] {
        let input = env.file("anim.gif"), output = env.file("anim-ours.gif")
        if !FileManager.default.fileExists(atPath: input.path) { try Self.makeInput(input) }
        let m = Self.matrix
        let lut = try LUT.make(size: 33, title: "warm matrix") { c in
            SIMD3(m[0] * c.x + m[1] * c.y + m[2] * c.z, m[3] * c.x + m[4] * c.y + m[5] * c.z, m[6] * c.x + m[7] * c.y + m[8] * c.z)
                .clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1))
        }
        let megapixels = Double(Self.frames * Self.width * Self.height) / 1e6
        // What `cyanotype apply anim.gif -o out.gif --lut look.cube` does, in process.
        let ours = try bestOf(env.runs) {
            let data = try Data(contentsOf: input)
            guard let source = CGImageSourceCreateWithData(data as CFData, nil) else { throw BenchError("cannot read anim.gif") }
            let count = CGImageSourceGetCount(source)
            let out = NSMutableData()
            guard let dest = CGImageDestinationCreateWithData(out, "com.compuserve.gif" as CFString, count, nil) else { throw BenchError("no GIF writer") }
            CGImageDestinationSetProperties(dest, [kCGImagePropertyGIFDictionary: [kCGImagePropertyGIFLoopCount: 0]] as CFDictionary)
            for i in 0..<count {
                let frame = try CIImage(source: source, index: i, options: nil)
                let delay = (frame.properties[kCGImagePropertyGIFDictionary] as? [String: Any])?[kCGImagePropertyGIFUnclampedDelayTime] as? Double ?? 0.1
                let graded = frame.applyingLUT(lut, interpolation: .tetrahedral)
                let r = try env.context.renderToData(graded, from: graded.extent, format: .RGBA8, colorSpace: env.sRGB, premultiplied: false)
                let cg = CGImage(width: r.width, height: r.height, bytesPerRow: r.rowBytes, format: .RGBA8, colorSpace: env.sRGB,
                                 premultiplied: false, data: r.data)
                try dest.add(cg, properties: [kCGImagePropertyGIFDictionary: [kCGImagePropertyGIFUnclampedDelayTime: delay]])
            }
            try dest.finalize()
            try (out as Data).write(to: output)
        }
        let name = "8 animated GIF 100 x 480x270, LUT look on every frame -> GIF"
        var rows = [Row(workload: name, ours: .time(ours), oursCPU: ours.cpu, megapixels: megapixels, reference: "100 frames in 3.33 s (30 frames/s)",
                        referenceValue: nil, target: .valueAtMost(Double(Self.frames) / 30, "s"))]
        guard Shell.available("convert"), Shell.output("convert -version")?.contains("ImageMagick") == true else {
            env.notes.append("8 gif: ImageMagick's convert missing (scripts/bench.sh installs it)")
            return rows
        }
        let matrix = m.map { String($0) }.joined(separator: " ")
        let ref = try Shell.time("convert anim.gif -color-matrix '\(matrix)' anim-im.gif", runs: env.runs, in: env.dir)
        rows.append(Row(workload: name, ours: .time(ours), oursCPU: ours.cpu, megapixels: megapixels,
                        reference: "ImageMagick convert -color-matrix", referenceValue: .time(ref), referenceCPU: ref.cpu, target: .ratioBelow(1)))
        let fps = Double(Self.frames) / ours.wall
        env.notes.append(String(format: "8 gif: %.0f frames/s (wall), %.1f ms CPU per frame; outputs %d bytes (ours), %d bytes (ImageMagick)",
                                fps, ours.cpu * 1000 / Double(Self.frames),
                                (try? Data(contentsOf: output).count) ?? 0, (try? Data(contentsOf: env.file("anim-im.gif")).count) ?? 0))
        return rows
    }
}
