import Cyanotype
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum BatchCommand {
    static let spec = CommandSpec(
        "batch", positionals: ["INPUT_DIR"],
        summary: "Apply filters to every .jpg/.jpeg/.png/.webp under a folder (recursively), in parallel, mirroring sub-folders.",
        options: ApplyOptions.table.filter { $0.name != "--explain" } + [
            OptionSpec("--jobs", short: "-j", value: "N", help: "Images processed at once (default: the number of cores)."),
            OptionSpec("--shard", value: "I/N", help: "Process only shard I of N (0 <= I < N), for job arrays."),
            OptionSpec("--skip-existing", help: "Leave outputs that already exist alone."),
        ],
        notes: ApplyOptions.specNotes + """


            Outputs keep each file's relative path; with --format the extension changes to match.
            Shards: a file belongs to shard (FNV-1a hash of its relative path) mod N, so each file
            lands in exactly one shard whatever machine runs it. Exit status 1 if any file failed.

            Example:
              cyanotype batch photos/ -o web/ --max-size 1600 --format jpeg -q 85 --shard 0/4
            """)

    static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "heic", "heif", "avif"]

    /// Image files under `root`, as sorted relative paths, leaving out anything inside `excluding`.
    static func listImages(under root: String, excluding: String?) throws(CLIError) -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            throw .failure("\(root): no such folder")
        }
        let rootURL = URL(fileURLWithPath: Files.resolved(root), isDirectory: true)
        let excluded = excluding.map { Files.resolved($0) + "/" }
        guard let walker = FileManager.default.enumerator(at: rootURL, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw .failure("\(root): cannot list the folder")
        }
        var out: [String] = []
        let prefix = rootURL.path.hasSuffix("/") ? rootURL.path : rootURL.path + "/"
        for case let url as URL in walker {
            let path = url.path
            if let excluded, (path + "/").hasPrefix(excluded) { walker.skipDescendants(); continue }
            guard extensions.contains(url.pathExtension.lowercased()),
                  (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  path.hasPrefix(prefix) else { continue }
            out.append(String(path.dropFirst(prefix.count)))
        }
        return out.sorted()
    }

    /// `I/N` -> (I, N).
    static func parseShard(_ text: String) throws(CLIError) -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 0, i < n else {
            throw .usage("--shard expects I/N with 0 <= I < N, e.g. 0/4, got '\(text)'")
        }
        return (i, n)
    }

    /// A hash of `path` that is the same on every machine and run (FNV-1a, 64-bit).
    static func stableHash(_ path: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in path.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    static func inShard(_ path: String, _ shard: (index: Int, count: Int)) -> Bool {
        stableHash(path) % UInt64(shard.count) == UInt64(shard.index)
    }

    static func outputPath(for relative: String, in outputDir: String, format: ImageFileFormat?) -> String {
        var rel = relative
        if let format {
            let current = (rel as NSString).pathExtension.lowercased()
            if Files.format(named: current) != format {
                rel = ((rel as NSString).deletingPathExtension as NSString).appendingPathExtension(Files.fileExtension(format)) ?? rel
            }
        }
        return (outputDir as NSString).appendingPathComponent(rel)
    }

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let inputDir = args.positionals[0]
        guard let outputDir = args.value("output") else { throw .usage("missing -o OUTPUT_DIR for 'batch'") }
        let opts = try ApplyOptions(args)
        let jobs = try args.int("jobs", in: 1...1024) ?? ProcessInfo.processInfo.activeProcessorCount
        let shard = try args.value("shard").map { (s: String) throws(CLIError) in try parseShard(s) }
        let explicitFormat = opts.format.flatMap(Files.format(named:))
        if let f = explicitFormat { try opts.checkDepth(for: f) }
        if Files.resolved(inputDir) == Files.resolved(outputDir), explicitFormat == nil {
            throw .usage("\(outputDir): the output folder is the input folder; outputs would overwrite the inputs")
        }
        let sameFolder = Files.resolved(inputDir) == Files.resolved(outputDir)
        var files = try listImages(under: inputDir, excluding: sameFolder ? nil : outputDir)
        if let shard { files = files.filter { inShard($0, shard) } }
        do {
            try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
        } catch {
            throw .failure("\(outputDir): cannot create the folder (\((error as NSError).localizedDescription))")
        }

        let run = BatchRun(total: files.count, showProgress: isatty(STDERR_FILENO) == 1)
        let context = CIContext(options: [.cacheIntermediates: false])
        let workers = max(1, min(jobs, files.count))
        let job = BatchJob(files: files, inputDir: inputDir, outputDir: outputDir, options: opts, format: explicitFormat,
                           skipExisting: args.has("skip-existing"), context: context)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let i = run.next() {
                run.finish(job.process(i))
            }
        }
        run.endProgress()
        let s = run.summary(shard: shard)
        FileHandle.standardError.write(Data((s.line + "\n").utf8))
        if s.failed > 0 { throw .failure("") }
    }
}

/// What one file came to.
enum BatchOutcome: Sendable {
    case written
    case skipped
    case failed(String)
}

/// The immutable work of a batch: which files, where, and how.
struct BatchJob: @unchecked Sendable {
    let files: [String]
    let inputDir: String
    let outputDir: String
    let options: ApplyOptions
    let format: ImageFileFormat?
    let skipExisting: Bool
    let context: CIContext

    func process(_ index: Int) -> BatchOutcome {
        let rel = files[index]
        let input = (inputDir as NSString).appendingPathComponent(rel)
        let output = BatchCommand.outputPath(for: rel, in: outputDir, format: format)
        if skipExisting && FileManager.default.fileExists(atPath: output) { return .skipped }
        do throws(CLIError) {
            let fmt = try Files.outputFormat(explicit: nil, path: output)
            try options.checkDepth(for: fmt)
            try Files.checkNotOverwriting(output: output, inputs: [input] + options.specImagePaths)
            let dir = (output as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                throw .failure("\(dir): cannot create the folder (\((error as NSError).localizedDescription))")
            }
            let image = try options.pipeline.run(on: try Files.readImage(input))
            try Files.write(image, to: output, format: fmt, settings: options.settings, context: context)
            return .written
        } catch {
            let msg = error.description
            return .failed(msg.hasPrefix(input) ? msg : "\(input): \(msg)")
        }
    }
}

/// Shared progress of a batch: the next file to take, counts, and the progress line.
final class BatchRun: @unchecked Sendable {
    private let lock = NSLock()
    private let total: Int
    private let showProgress: Bool
    private let start = Date()
    private var taken = 0
    private var done = 0
    private var written = 0
    private var skipped = 0
    private var failures: [String] = []

    init(total: Int, showProgress: Bool) {
        self.total = total
        self.showProgress = showProgress
    }

    func next() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard taken < total else { return nil }
        taken += 1
        return taken - 1
    }

    func finish(_ outcome: BatchOutcome) {
        lock.lock(); defer { lock.unlock() }
        done += 1
        var line = ""
        switch outcome {
        case .written: written += 1
        case .skipped: skipped += 1
        case .failed(let why):
            failures.append(why)
            line = "error: \(why)\n"
        }
        if showProgress {
            let elapsed = Date().timeIntervalSince(start)
            let rate = elapsed > 0 ? Double(done) / elapsed : 0
            let eta = rate > 0 ? Int(Double(total - done) / rate) : 0
            line = (line.isEmpty ? "" : "\r\u{1B}[K" + line)
                + String(format: "\r\u{1B}[K%d/%d  %.1f images/s  ETA %d:%02d", done, total, rate, eta / 60, eta % 60)
        }
        if !line.isEmpty { FileHandle.standardError.write(Data(line.utf8)) }
    }

    func endProgress() {
        if showProgress && total > 0 { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    func summary(shard: (index: Int, count: Int)?) -> (line: String, failed: Int) {
        lock.lock(); defer { lock.unlock() }
        let elapsed = Date().timeIntervalSince(start)
        let shardText = shard.map { " (shard \($0.index)/\($0.count))" } ?? ""
        let rate = elapsed > 0 ? Double(written) / elapsed : 0
        let line = String(format: "batch%@: %d images, %d written, %d skipped, %d failed in %.2f s (%.1f images/s)",
                          shardText, total, written, skipped, failures.count, elapsed, rate)
        return (line, failures.count)
    }
}
