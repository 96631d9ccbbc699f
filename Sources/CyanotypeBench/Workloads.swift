import Foundation
import Cyanotype

/// One benchmark from the engine issue. `key` selects it with `--only`.
protocol Workload: Sendable {
    var key: String { get }
    func run(_ env: BenchEnvironment) throws -> [Row]
}

/// 1. A colour matrix over premultiplied linear Float32 RGBA in memory, to Float32.
struct ColorMatrixFloat: Workload {
    let key = "matrix"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let img = env.image, job = FloatBitmapJob(env)
        // Beside the same render with no filter: what reading and writing the buffers alone costs.
        let t = try bestOfInterleaved(env.runs, [job.render(BenchFilters.colorMatrix(job.input)), job.render(job.input)])
        let (matrix, copy) = (t[0], t[1])
        return [
            Row(
                workload: "1 colour matrix, RGBAf linear", ours: .time(matrix), oursCPU: matrix.cpu, megapixels: img.megapixels,
                reference: "-", referenceValue: nil, target: .throughputAtLeast(500)),
            Row(
                workload: "1 same, no filter (RGBAf in -> out)", ours: .time(copy), oursCPU: copy.cpu, megapixels: img.megapixels,
                reference: "-", referenceValue: nil, target: .info),
        ]
    }
}

/// The in-memory float setting of rows 1 and 27: the bench picture as linear RGBAf, and renders
/// of recipes over it into one RGBAf buffer.
final class FloatBitmapJob {
    /// The picture as linear RGBAf in memory.
    let input: CIImage
    private let env: BenchEnvironment
    private let out: UnsafeMutableRawPointer

    init(_ env: BenchEnvironment) {
        let img = env.image, bytes = img.width * img.height * 16
        self.env = env
        input = CIImage(
            bitmapData: img.rgbaLinearFloat(from: env.rgba8), bytesPerRow: img.width * 16, size: img.extent.size,
            format: .RGBAf, colorSpace: env.linearSRGB)
        out = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        out.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
    }
    deinit { out.deallocate() }

    /// A timed step: `recipe` rendered over the whole picture into the buffer.
    func render(_ recipe: CIImage) -> () throws -> Void {
        { [self] in
            try env.context.renderChecked(
                recipe, toBitmap: out, rowBytes: env.image.width * 16, bounds: env.image.extent, format: .RGBAf,
                colorSpace: env.linearSRGB)
        }
    }
}

/// 2. Five fused per-pixel filters against one, 8-bit sRGB in and out.
struct FusedChain: Workload {
    let key = "chain"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let chain = BenchFilters.five(env.ciImage8)
        // A grading chain of the kind photo apps stack (four fold into one matrix).
        // The heavy chain's costliest member alone, the other reading of "one filter".
        let gamma = env.ciImage8.applyingFilter("CIGammaAdjust", parameters: ["inputPower": 0.9])
        let t = try bestOfInterleaved(
            env.runs,
            [BenchFilters.colorMatrix(env.ciImage8), chain, BenchFilters.grade(env.ciImage8), gamma].map { image in
                { try env.render8(image, bounds: env.image.extent) }
            })
        let (one, five, grade, costliest) = (t[0], t[1], t[2], t[3])
        _ = try env.render8(chain, bounds: env.image.extent)
        env.note("2 five filters", env.context.lastRenderStatistics)
        let recipe = "\(chain)"
        env.notes.append("2 recipe: " + (recipe.range(of: "fused").map { String(recipe[$0.lowerBound...].dropLast()) } ?? recipe))
        return [
            Row(
                workload: "2 five per-pixel filters, RGBA8 (matrix, exposure, vibrance, gamma, controls)", ours: .time(five), oursCPU: five.cpu,
                megapixels: env.image.megapixels,
                reference: "ours, CIColorMatrix alone", referenceValue: .time(one), referenceCPU: one.cpu, target: .ratioAtMost(1.5)),
            Row(
                workload: "2 same five (matrix, exposure, vibrance, gamma, controls)", ours: .time(five), oursCPU: five.cpu,
                megapixels: env.image.megapixels,
                reference: "ours, CIGammaAdjust alone", referenceValue: .time(costliest), referenceCPU: costliest.cpu, target: .info),
            Row(
                workload: "2 five per-pixel filters, RGBA8 (exposure, controls, hue, sepia, vignette)", ours: .time(grade), oursCPU: grade.cpu,
                megapixels: env.image.megapixels,
                reference: "ours, CIColorMatrix alone", referenceValue: .time(one), referenceCPU: one.cpu, target: .ratioAtMost(1.5)),
        ]
    }
}

/// The blur recipe of workloads 3 and 4: edges clamped, as vips and ffmpeg extend them.
func blurred(_ env: BenchEnvironment) -> CIImage {
    env.ciImage8.clampedToExtent().applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: 10]).cropped(to: env.image.extent)
}

/// 3. Gaussian blur sigma 10, 8-bit in and out, against vips and ffmpeg on the same pixels.
struct GaussianBlur: Workload {
    let key = "blur"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let img = env.image
        let ours = try env.time8(blurred(env))
        env.recorded["blur"] = ours
        env.note("3 blur", env.context.lastRenderStatistics)
        var rows = [Row]()
        func reference(_ name: String, _ target: Target, runs: Int? = nil, _ command: () throws -> String) {
            do {
                let t = try Shell.time(try command(), runs: runs ?? env.runs, in: env.dir)
                rows.append(
                    Row(
                        workload: "3 gaussian blur sigma 10, RGBA8", ours: .time(ours), oursCPU: ours.cpu, megapixels: img.megapixels,
                        reference: name, referenceValue: .time(t), referenceCPU: t.cpu, target: target))
            } catch {
                env.notes.append("3 blur: \(name) skipped: \(error)")
            }
        }
        reference("vips gaussblur 10 (.v, shm)", .ratioBelow(1)) { "vips gaussblur \(try env.vipsFile.get().path) out.v 10" }
        compareWithVips(env)
        if !env.quick {
            // Float precision is what we compute in; slow, so timed once.
            reference("vips gaussblur 10 --precision float", .info, runs: 1) { "vips gaussblur \(try env.vipsFile.get().path) out.v 10 --precision float" }
        }
        if Shell.available("ffmpeg") {
            reference("ffmpeg gblur sigma=10 (rawvideo)", .info) {
                "ffmpeg -v error -f rawvideo -pix_fmt rgba -s \(img.width)x\(img.height) -i \(try env.rawFile.get().path) "
                    + "-vf gblur=sigma=10 -f rawvideo -pix_fmt rgba -y out.rgba"
            }
        }
        if rows.isEmpty {
            rows.append(
                Row(
                    workload: "3 gaussian blur sigma 10, RGBA8", ours: .time(ours), oursCPU: ours.cpu, megapixels: img.megapixels,
                    reference: "(vips missing)", referenceValue: nil, target: .ratioBelow(1)))
        }
        return rows + (try blurPeerRows(env))
    }
}

/// How far our blur (still in `env.output8`) is from vips' (`out.v`: a 64-byte header, then
/// the same interleaved bytes), so the comparison is known to be like with like.
private func compareWithVips(_ env: BenchEnvironment) {
    let n = env.image.width * env.image.height * 4
    guard let v = try? Data(contentsOf: env.file("out.v")), v.count >= 64 + n else { return }
    var sum = 0, worst = 0
    v.withUnsafeBytes { raw in
        let theirs = raw.bindMemory(to: UInt8.self).baseAddress! + 64
        let ours = env.output8.assumingMemoryBound(to: UInt8.self)
        for i in 0..<n {
            let d = abs(Int(ours[i]) - Int(theirs[i]))
            sum += d
            worst = max(worst, d)
        }
    }
    env.notes.append(
        String(
            format: "3 blur: ours vs vips gaussblur output: mean |diff| %.2f, max %d (8-bit levels; ours blurs linear light, vips the sRGB codes)",
            Double(sum) / Double(n), worst))
}

/// 4. A centred 1% crop of the blurred image against rendering all of it.
struct BlurCrop: Workload {
    let key = "crop"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let img = env.image
        let full = try env.recorded["blur"] ?? env.time8(blurred(env))
        let w = Double(img.width / 10), h = Double(img.height / 10)
        let rect = CGRect(x: (Double(img.width) - w) / 2, y: (Double(img.height) - h) / 2, width: w, height: h)
        let crop = try env.time8(blurred(env).cropped(to: rect), bounds: rect)
        env.note("4 crop", env.context.lastRenderStatistics)
        return [
            Row(
                workload: "4 1% crop (\(Int(w))x\(Int(h))) of the blur", ours: .time(crop), oursCPU: crop.cpu, megapixels: w * h / 1e6,
                reference: "ours, full blur render", referenceValue: .time(full), referenceCPU: full.cpu, target: .ratioAtMost(0.05))
        ]
    }
}

/// 5. Peak resident memory of 8-bit in -> five fused filters -> 8-bit out, measured in a
/// child process (a process's high-water mark cannot be reset).
struct PeakMemory: Workload {
    let key = "memory"
    static let childName = "fused-8bit"

    func run(_ env: BenchEnvironment) throws -> [Row] {
        let img = env.image
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let out = try Shell.outputOrThrow(exe, ["--child-workload", PeakMemory.childName, "--size", "\(img.width)x\(img.height)"])
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("peak_increase_bytes ") }),
            let peak = Int(line.split(separator: " ")[1])
        else { throw BenchError("child printed no peak: \(out)") }
        let buffers = 2 * img.width * img.height * 4
        return [
            Row(
                workload: "5 peak RSS, RGBA8 -> 5 fused -> RGBA8", ours: .bytes(peak), megapixels: nil,
                reference: "8-bit input + output", referenceValue: .bytes(buffers), target: .ratioBelow(2))
        ]
    }

    /// The child's side: prints how far the resident set rose above its starting level.
    static func child(_ image: SyntheticImage) throws {
        let base = Memory.currentRSS
        let input = image.image8(image.rgba8())
        let ctx = CIContext(options: [.cacheIntermediates: false])
        let r = try ctx.renderToData(BenchFilters.five(input), from: image.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        precondition(r.data.count == image.width * image.height * 4)
        print("peak_increase_bytes \(Memory.peakRSS - base)")
    }
}

/// 6. JPEG decode + encode at quality 90 against libjpeg-turbo's `djpeg | cjpeg`.
struct JPEGRoundTrip: Workload {
    let key = "jpeg"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let input = env.file("in.jpg"), output = env.file("ours.jpg")
        let q90: [CIImageRepresentationOption: Any] = [.lossyCompressionQuality: 0.9]
        try env.context.encode(env.ciImage8, as: .jpeg, options: q90).write(to: input)
        let ours = try bestOf(env.runs) {
            let img = try CIImage.read(contentsOf: input)
            try env.context.encode(img, as: .jpeg, options: q90).write(to: output)
        }
        // Decode alone (file -> RGBA8 in memory) against djpeg alone, to split the cost.
        let decode = try bestOf(env.runs) { try env.render8(try CIImage.read(contentsOf: input), bounds: env.image.extent) }
        var ref: Timing? = nil, refDecode: Timing? = nil
        if Shell.available("djpeg") && Shell.available("cjpeg") {
            ref = try Shell.time("djpeg \(input.path) | cjpeg -quality 90 > ref.jpg", runs: env.runs, in: env.dir)
            refDecode = try Shell.time("djpeg \(input.path) > ref.ppm", runs: env.runs, in: env.dir)
        } else {
            env.notes.append("6 jpeg: djpeg/cjpeg missing (apt-get install -y libjpeg-turbo-progs)")
        }
        let size = { (u: URL) in ((try? FileManager.default.attributesOfItem(atPath: u.path)[.size] as? Int) ?? 0) / 1000 }
        env.notes.append("6 jpeg: input \(size(input)) kB; ours \(size(output)) kB; djpeg|cjpeg \(size(env.file("ref.jpg"))) kB")
        return [
            Row(
                workload: "6 JPEG q90 decode + encode", ours: .time(ours), oursCPU: ours.cpu, megapixels: env.image.megapixels,
                reference: "djpeg | cjpeg -quality 90", referenceValue: ref.map { .time($0) }, referenceCPU: ref?.cpu, target: .ratioAtMost(1.2)),
            Row(
                workload: "6 JPEG decode only -> RGBA8", ours: .time(decode), oursCPU: decode.cpu, megapixels: env.image.megapixels,
                reference: "djpeg > ppm", referenceValue: refDecode.map { .time($0) }, referenceCPU: refDecode?.cpu, target: .info),
        ]
    }
}

let allWorkloads: [any Workload] = [
    ColorMatrixFloat(), FusedChain(), GaussianBlur(), BlurCrop(), PeakMemory(), JPEGRoundTrip(),
    LUTApply(), Reductions(), InstafilterLooks(), TextParagraph(), AnimatedGIFLook(), SixteenBit(),
    Thumbnail(), BlurCatalog(),
    VideoWorkloads(), PNGOutput(), StreamingFiles(), RealPhotos(), PhotoFormats(), RAWDevelop(), SourceKernels(),
]
