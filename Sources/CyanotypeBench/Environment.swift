import Foundation
import Cyanotype

/// State shared by the workloads of one run: the test image, a scratch folder for the
/// reference tools, one reusable output buffer, and results one workload hands another.
final class BenchEnvironment {
    let image: SyntheticImage
    let runs: Int
    let quick: Bool
    /// Scratch files for the reference tools (in /dev/shm when present, so no disk I/O).
    let dir: URL
    /// Intermediates are not cached, so every timed render does the full work.
    let context = CIContext(options: [.cacheIntermediates: false])
    let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
    let linearSRGB = CGColorSpace(name: CGColorSpace.linearSRGB)!
    /// Full-size RGBA8 destination, allocated and touched once so page faults stay out of timings.
    let output8: UnsafeMutableRawPointer
    /// Times one workload records for another (the full blur, for the crop's ratio).
    var recorded: [String: Timing] = [:]
    /// Renderer statistics and other remarks printed below the table.
    var notes: [String] = []

    init(image: SyntheticImage, runs: Int, quick: Bool) throws {
        self.image = image
        self.runs = runs
        self.quick = quick
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        dir = base.appendingPathComponent("cyanotype-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        output8 = .allocate(byteCount: image.width * image.height * 4, alignment: 64)
        output8.initializeMemory(as: UInt8.self, repeating: 0, count: image.width * image.height * 4)
    }

    deinit {
        output8.deallocate()
        try? FileManager.default.removeItem(at: dir)
    }

    private(set) lazy var rgba8: Data = image.rgba8()
    private(set) lazy var ciImage8: CIImage = image.image8(rgba8)

    func file(_ name: String) -> URL { dir.appendingPathComponent(name) }

    /// The `cyanotype` command-line tool built beside this benchmark (same configuration),
    /// or nil when it is not there.
    let commandLineTool: String? = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let cli = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("cyanotype").path
        return FileManager.default.isExecutableFile(atPath: cli) ? cli : nil
    }()

    /// The test image as raw RGBA bytes (for ffmpeg) and as vips' native `.v` (for vips).
    private(set) lazy var rawFile: Result<URL, Error> = Result {
        let url = file("in.rgba")
        try rgba8.write(to: url)
        return url
    }
    private(set) lazy var vipsFile: Result<URL, Error> = Result {
        let raw = try rawFile.get()
        try Shell.run("vips rawload \(raw.path) in.v \(image.width) \(image.height) 4", in: dir)
        return file("in.v")
    }

    /// Renders `bounds` of `image` as 8-bit sRGB into the shared buffer.
    func render8(_ image: CIImage, bounds: CGRect) throws {
        try context.renderChecked(image, toBitmap: output8, rowBytes: Int(bounds.width) * 4, bounds: bounds, format: .RGBA8, colorSpace: sRGB)
    }

    /// Best-of-`runs` time of rendering `bounds` of `image` to 8-bit sRGB.
    func time8(_ image: CIImage, bounds: CGRect? = nil) throws -> Timing {
        try bestOf(runs) { try render8(image, bounds: bounds ?? self.image.extent) }
    }

    func note(_ label: String, _ s: RenderStatistics) {
        notes.append("\(label): tiles \(s.tiles), source pixels \(String(format: "%.1f", Double(s.sourcePixels) / 1e6)) M, intermediates \(s.intermediatesRendered)")
    }
}
