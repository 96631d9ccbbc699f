import Cyanotype
import Foundation

/// #26 rows 5-8 ("Real photos on the fast path"): the formats other than JPEG through the
/// command-line tool beside vips, taking turns: CPU and wall time, and each process's peak RSS
/// through GNU time. Inputs are the bench's picture written by the library: (5) a 12 MP HEIC
/// tagged Display P3 (when libheif can encode), (6) the 24 MP picture as a 16-bit PNG, (7) as a deflate TIFF,
/// (8) a 16 MP WebP.
struct PhotoFormats: Workload {
    let key = "formats"

    func run(_ env: BenchEnvironment) throws -> [Row] {
        guard let cli = env.commandLineTool, Shell.available("vips"), Shell.available("vipsthumbnail"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        else {
            env.notes.append("26 formats: needs the cyanotype tool beside the benchmark, vips (libvips-tools) and GNU time (time): rows skipped")
            return []
        }
        let ctx = env.context
        let full = env.ciImage8
        /// The picture scaled to about `megapixels`, as a source for the smaller inputs.
        func scaled(_ megapixels: Double) -> CIImage {
            let s = (megapixels * 1e6 / (full.extent.width * full.extent.height)).squareRoot()
            let img = full.transformed(by: CGAffineTransform(scaleX: s, y: s))
            return img.cropped(to: img.extent.integral)
        }
        var jobs: [(label: String, file: String, make: () throws -> Data, ours: String, vips: String)] = [
            (
                "26.6 16-bit PNG -> 8-bit JPEG q90", "in16.png", { try ctx.encode(full, as: .png, depth: 16) },
                "apply in16.png -q 90 -o f6-ours.jpg", "vips copy in16.png 'f6-vips.jpg[Q=90]'"
            ),
            (
                "26.7 deflate TIFF -> 1500 px JPEG q90", "in.tif",
                { try ctx.encode(full, as: .tiff, options: [.tiffCompression: TIFFCompression.deflate]) },
                "apply in.tif --max-size 1500 -q 90 --subsample 420 -o f7-ours.jpg",
                "vipsthumbnail in.tif -s 1500 -o 'f7-vips.jpg[Q=90,subsample-mode=on]'"
            ),
            (
                "26.8 16 MP WebP -> 1500 px JPEG q90", "in.webp",
                { try ctx.encode(scaled(16), as: .webp, options: [.lossyCompressionQuality: 0.9]) },
                "apply in.webp --max-size 1500 -q 90 --subsample 420 -o f8-ours.jpg",
                "vipsthumbnail in.webp -s 1500 -o 'f8-vips.jpg[Q=90,subsample-mode=on]'"
            ),
        ]
        if ImageFileFormat.heif.canEncode {
            jobs.insert(
                (
                    "26.5 12 MP P3 HEIC -> 1500 px JPEG q90", "in.heic",
                    {
                        try ctx.encode(
                            scaled(12), as: .heif, colorSpace: CGColorSpace(name: CGColorSpace.displayP3),
                            options: [.lossyCompressionQuality: 0.9])
                    },
                    "apply in.heic --max-size 1500 -q 90 --subsample 420 -o f5-ours.jpg",
                    "vipsthumbnail in.heic -s 1500 -o 'f5-vips.jpg[Q=90,subsample-mode=on]'"
                ), at: 0)
        } else {
            env.notes.append("26.5 HEIC: this libheif cannot encode HEIC: row skipped")
        }
        let rss = { (name: String) in
            (try? String(contentsOf: env.file(name), encoding: .utf8))
                .flatMap { $0.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }.map { $0 * 1024 } ?? 0
        }
        let measured = { (name: String, command: String) in "/usr/bin/time -f %M -o \(name).rss \(command)" }
        var rows = [Row]()
        for (i, job) in jobs.enumerated() {
            let input = env.file(job.file)
            if !FileManager.default.fileExists(atPath: input.path) { try job.make().write(to: input) }
            let t = try Shell.timeInterleaved(
                [measured("f\(i)-ours", "\(cli) \(job.ours)"), measured("f\(i)-vips", job.vips)], runs: max(env.runs, 3), in: env.dir)
            let reference = job.vips.split(separator: " ").prefix(2).joined(separator: " ")
            rows.append(
                Row(
                    workload: "\(job.label) (cyanotype apply)", ours: .time(t[0]), oursCPU: t[0].cpu, megapixels: nil,
                    reference: reference, referenceValue: .time(t[1]), referenceCPU: t[1].cpu, target: .ratioBelow(1)))
            rows.append(
                Row(
                    workload: "\(job.label.prefix(4))   peak RSS", ours: .bytes(rss("f\(i)-ours.rss")), megapixels: nil,
                    reference: reference, referenceValue: .bytes(rss("f\(i)-vips.rss")), target: .ratioAtMost(1.25)))
        }
        return rows
    }
}
