import Cyanotype
import CyanotypeTool
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One input of a batch: the file to read, and its path relative to the input root it was
/// found under (folders are mirrored under the output folder).
struct BatchItem: Equatable, Sendable {
    let input: String
    let relative: String
}

enum BatchCommand {
    static let spec = CommandSpec(
        "batch", positionals: ["INPUT..."],
        summary: "Apply the same work to many images in parallel: folders (recursively), files and globs ('photos/**/*.jpg').",
        options: ApplyOptions.pipelineTable + RAWReading.options + OutputOptions.table + [
            OptionSpec("--files-from", value: "LIST", help: "Also read input paths from LIST, one per line ('-' for stdin; # starts a comment)."),
            OptionSpec("--include", value: "GLOB", repeatable: true, help: "Only inputs matching GLOB (a name pattern, or a path pattern with '/')."),
            OptionSpec("--exclude", value: "GLOB", repeatable: true, help: "Leave out inputs matching GLOB."),
            OptionSpec("--name", value: "TEMPLATE", help: "Output names: {stem}, {ext} (output), {srcext}, {name}, {dir}; default '{stem}.{ext}' in the mirrored folder."),
            OptionSpec(
                "--on-collision", value: "MODE",
                help: "When two inputs would write one output: error (default: refuse before any work), rename ({stem}-{srcext}) or skip (keep the first)."),
            OptionSpec("--jobs", short: "-j", value: "N", help: "Images processed at once (default: the number of cores)."),
            OptionSpec("--shard", value: "I/N", help: "Process only shard I of N (0 <= I < N); 'auto' (or auto/N) reads the index from Slurm, Kubernetes or AWS Batch."),
            OptionSpec("--skip-existing", help: "Leave outputs that already exist alone."),
            OptionSpec("--verbose", short: "-v", help: "A line per file on stderr (input -> output, time)."),
            OptionSpec(
                "--json",
                help: "Print a JSON document on stdout at the end: counts, seconds, failures, and 'files', one record per file (input, output, status, error, milliseconds)."),
            OptionSpec("--jsonl", help: "Print each file's record (as in --json) on stdout as one JSON line as soon as it finishes."),
        ],
        notes: ApplyOptions.specNotes + """


            Inputs: a folder is searched recursively for \(Files.imageExtensions.map { "." + $0 }.joined(separator: " "))
            files (any case); a glob (quote it) matches under its fixed leading folders, ** spanning
            folders; a file is taken as given. Outputs keep each file's path relative to its input
            folder (or the glob's leading folders); a file given by name or in --files-from keeps its
            relative path (an absolute path or one with '..' keeps only its name); with --format
            the extension changes to match. A missing or unreadable file fails on its own.
            Two inputs that would write one output (x.tif and x.jpg with --format png) are found
            before any work: refused with the list, renamed or skipped as --on-collision says.
            Shards: a file belongs to shard (FNV-1a hash of its relative path) mod N, so each file
            lands in exactly one shard whatever machine runs it; --shard auto takes I (and N) from
            SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, JOB_COMPLETION_INDEX (Kubernetes, N from
            auto/N) or AWS_BATCH_JOB_ARRAY_INDEX (N from auto/N). Folders the batch created and
            left empty are removed. Exit status 1 if any file failed.

            Examples:
              cyanotype batch photos/ -o web/ --max-size 1600 --format jpeg -q 85 --strip gps
              cyanotype batch 'shoot/**/*.tif' -o out/ --format png --on-collision rename -v
              cyanotype batch --files-from picks.txt -o thumbs/ --thumbnail 256 --name '{stem}-thumb.{ext}' --shard auto/8
            """)

    static let defaultTemplate = "{stem}.{ext}"

    // MARK: Listing

    /// Image files under `root`, as sorted relative paths, leaving out anything inside `excluding`.
    static func listImages(under root: String, excluding: String?, matching pattern: [Substring]? = nil) throws(CLIError) -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            throw .failure("\(root): no such folder")
        }
        let rootURL = URL(fileURLWithPath: Files.resolved(root), isDirectory: true)
        let excluded = excluding.map { Files.resolved($0) + "/" }
        guard let walker = FileManager.default.enumerator(at: rootURL, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw .failure("\(root): cannot list the folder")
        }
        let extensions = Set(Files.imageExtensions)
        var out: [String] = []
        let prefix = rootURL.path.hasSuffix("/") ? rootURL.path : rootURL.path + "/"
        for case let url as URL in walker {
            let path = url.path
            if let excluded, (path + "/").hasPrefix(excluded) { walker.skipDescendants(); continue }
            guard extensions.contains(url.pathExtension.lowercased()),
                (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                path.hasPrefix(prefix)
            else { continue }
            let rel = String(path.dropFirst(prefix.count))
            if let pattern, !Glob.matches(pattern.joined(separator: "/"), path: rel) { continue }
            out.append(rel)
        }
        return out.sorted()
    }

    /// The items the command line names: folders, globs, files and `--files-from` lines.
    static func items(_ args: ParsedArguments, outputDir: String) throws(CLIError) -> [BatchItem] {
        var items: [BatchItem] = []
        for arg in args.positionals {
            if Glob.hasWildcards(arg) && !FileManager.default.fileExists(atPath: arg) {
                // The leading components without wildcards are the folder to search.
                let comps = arg.split(separator: "/", omittingEmptySubsequences: false)
                let fixed = comps.prefix { !Glob.hasWildcards(String($0)) }
                let pattern = comps.dropFirst(fixed.count)
                var base = fixed.joined(separator: "/")
                if base.isEmpty { base = arg.hasPrefix("/") ? "/" : "." }
                let found = try listImages(under: base, excluding: outputDir, matching: Array(pattern))
                if found.isEmpty { Console.warn("'\(arg)' matches no image files") }
                items += found.map { BatchItem(input: (base as NSString).appendingPathComponent($0), relative: $0) }
                continue
            }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: arg, isDirectory: &isDir), isDir.boolValue {
                let sameFolder = Files.resolved(arg) == Files.resolved(outputDir)
                items += try listImages(under: arg, excluding: sameFolder ? nil : outputDir)
                    .map { BatchItem(input: (arg as NSString).appendingPathComponent($0), relative: $0) }
            } else {
                // A file is laid out as a --files-from line is; a missing or unreadable one
                // fails on its own when it is read, like any other file of the batch.
                items.append(BatchItem(input: arg, relative: relativeName(arg)))
            }
        }
        if let list = args.value("files-from") {
            let data: Data
            if list == "-" {
                data = try Console.readStandardInput(allowEmpty: true)
            } else {
                guard FileManager.default.fileExists(atPath: list) else { throw .failure("\(list): no such file") }
                guard let d = FileManager.default.contents(atPath: list) else { throw .failure("\(list): cannot read the file") }
                data = d
            }
            for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
                let path = line.trimmingCharacters(in: .whitespaces)
                guard !path.isEmpty, !path.hasPrefix("#") else { continue }
                items.append(BatchItem(input: path, relative: relativeName(path)))
            }
        }
        let includes = args.all("include"), excludes = args.all("exclude")
        items = items.filter { item in
            (includes.isEmpty || includes.contains { Glob.filterMatches($0, relativePath: item.relative) })
                && !excludes.contains { Glob.filterMatches($0, relativePath: item.relative) }
        }
        // The same file named twice is one input.
        var seen = Set<String>()
        items = items.filter { seen.insert(Files.resolved($0.input)).inserted }
        return items.sorted { ($0.relative, $0.input) < ($1.relative, $1.input) }
    }

    /// A listed path as an output path: kept when relative and inside, else its file name.
    static func relativeName(_ path: String) -> String {
        var p = path
        while p.hasPrefix("./") { p.removeFirst(2) }
        let comps = p.split(separator: "/")
        if p.hasPrefix("/") || comps.contains("..") { return (p as NSString).lastPathComponent }
        return p
    }

    // MARK: Naming

    /// The output path of `item` under `outputDir`: the template in the item's mirrored folder
    /// (a template with '/' or {dir} places the file itself).
    static func outputPath(
        for item: BatchItem, in outputDir: String, format: ImageFileFormat?, template: String,
        stemSuffix: String = ""
    ) throws(CLIError) -> String {
        let rel = item.relative as NSString
        let srcext = rel.pathExtension
        let stem = (rel.lastPathComponent as NSString).deletingPathExtension + stemSuffix
        let dir = rel.deletingLastPathComponent
        var ext = srcext
        if let format, Files.format(named: srcext) != format { ext = Files.fileExtension(format) }
        // A file at the top of its input has no folder: '{dir}/' then names nothing.
        var name = dir.isEmpty ? template.replacingOccurrences(of: "{dir}/", with: "") : template
        for (key, value) in [("{stem}", stem), ("{ext}", ext), ("{srcext}", srcext), ("{name}", rel.lastPathComponent), ("{dir}", dir)] {
            name = name.replacingOccurrences(of: key, with: value)
        }
        if !(template.contains("/") || template.contains("{dir}")) { name = (dir as NSString).appendingPathComponent(name) }
        let comps = name.split(separator: "/")
        guard !name.hasPrefix("/"), !comps.contains(".."), !name.isEmpty, !name.hasSuffix("/") else {
            throw .usage("--name '\(template)' gives '\(name)' for \(item.input): outputs must stay inside the output folder")
        }
        return (outputDir as NSString).appendingPathComponent(comps.filter { $0 != "." }.joined(separator: "/"))
    }

    /// Output paths for every item, with collisions found before any work and resolved as
    /// `mode` says (nil: skipped by `skip`).
    static func plan(
        _ items: [BatchItem], outputDir: String, format: ImageFileFormat?, template: String,
        mode: String
    ) throws(CLIError) -> [(item: BatchItem, output: String?)] {
        var outputs: [String] = []
        for item in items { outputs.append(try outputPath(for: item, in: outputDir, format: format, template: template)) }
        var groups: [String: [Int]] = [:]
        for (i, o) in outputs.enumerated() { groups[Files.resolved(o), default: []].append(i) }
        let collisions = groups.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }
        var result: [(item: BatchItem, output: String?)] = items.indices.map { (items[$0], outputs[$0]) }
        if !collisions.isEmpty {
            switch mode {
            case "rename":
                var taken = Set(groups.keys)
                for group in collisions {
                    for i in group {
                        let suffix = "-" + (items[i].relative as NSString).pathExtension.lowercased()
                        var candidate = try outputPath(for: items[i], in: outputDir, format: format, template: template, stemSuffix: suffix)
                        var n = 2
                        while taken.contains(Files.resolved(candidate)) {
                            candidate = try outputPath(for: items[i], in: outputDir, format: format, template: template, stemSuffix: suffix + "-\(n)")
                            n += 1
                        }
                        taken.insert(Files.resolved(candidate))
                        result[i].output = candidate
                    }
                }
            case "skip":
                for group in collisions {
                    for i in group.dropFirst() {
                        Console.warn("skipping \(items[i].input): \(outputs[i]) is written from \(items[group[0]].input)")
                        result[i].output = nil
                    }
                }
            default:
                var text = "\(collisions.count) output\(collisions.count == 1 ? "" : "s") would be written by more than one input:\n"
                for group in collisions.prefix(20) {
                    text += "  \(outputs[group[0]]) <- " + group.map { items[$0].input }.joined(separator: ", ") + "\n"
                }
                if collisions.count > 20 { text += "  ... and \(collisions.count - 20) more\n" }
                text += "nothing was written; pass --on-collision rename (adds -SRCEXT to the name) or skip, or --name '{stem}-{srcext}.{ext}'"
                throw .usage(text)
            }
        }
        // An output that is one of the inputs would destroy it.
        let inputs = Dictionary(items.map { (Files.resolved($0.input), $0.input) }, uniquingKeysWith: { a, _ in a })
        for (_, output) in result {
            if let output, let input = inputs[Files.resolved(output)] {
                throw .usage("\(output): refusing to overwrite the input \(input); choose another output folder, --format or --name")
            }
        }
        return result
    }

    // MARK: Shards

    /// `I/N`, `auto` or `auto/N` -> (I, N).
    static func parseShard(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError) -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.first?.lowercased() == "auto" {
            guard parts.count <= 2 else { throw .usage("--shard expects I/N, auto or auto/N, got '\(text)'") }
            var count: Int?
            if parts.count == 2 {
                guard let n = Int(parts[1]), n >= 1 else { throw .usage("--shard auto/N expects a whole N >= 1, got '\(text)'") }
                count = n
            }
            func env(_ k: String) -> Int? { environment[k].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
            var index: Int?
            var source = ""
            if let id = env("SLURM_ARRAY_TASK_ID") {
                let step = max(1, env("SLURM_ARRAY_TASK_STEP") ?? 1)
                index = (id - (env("SLURM_ARRAY_TASK_MIN") ?? 0)) / step
                count = count ?? env("SLURM_ARRAY_TASK_COUNT")
                source = "SLURM_ARRAY_TASK_ID"
            } else if let i = env("JOB_COMPLETION_INDEX") {
                index = i; source = "JOB_COMPLETION_INDEX"
            } else if let i = env("AWS_BATCH_JOB_ARRAY_INDEX") {
                index = i; source = "AWS_BATCH_JOB_ARRAY_INDEX"
            }
            guard let index else {
                throw .usage("--shard auto found no array index: set SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX, or pass --shard I/N")
            }
            guard let n = count else { throw .usage("--shard auto: \(source) gives the index but not the count; pass --shard auto/N") }
            guard index >= 0, index < n else { throw .usage("--shard auto: index \(index) (from \(source)) is not below the count \(n)") }
            return (index, n)
        }
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 0, i < n else {
            throw .usage("--shard expects I/N with 0 <= I < N (e.g. 0/4), auto or auto/N, got '\(text)'")
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

    // MARK: Running

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard let outputDir = args.value("output") else { throw .usage("missing -o OUTPUT_DIR for 'batch'") }
        if outputDir == "-" {
            throw .usage("batch writes files into a folder, not to standard output: give -o FOLDER (use 'apply ... -o -' for one image on stdout)")
        }
        if args.has("json") && args.has("jsonl") { throw .usage("--json and --jsonl both print the per-file records: choose one") }
        if args.positionals.isEmpty && !args.has("files-from") {
            throw .usage("missing INPUT for 'batch': give folders, files or globs, or --files-from LIST")
        }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputDir, isDirectory: &isDir), !isDir.boolValue {
            throw .usage("\(outputDir): is a file; batch writes into a folder")
        }
        let opts = try ApplyOptions(args)
        let jobs = try args.int("jobs", in: 1...1024) ?? ProcessInfo.processInfo.activeProcessorCount
        let shard = try args.value("shard").map { (s: String) throws(CLIError) in try parseShard(s) }
        let collisionMode = try args.choice("on-collision", ["error", "rename", "skip"]) ?? "error"
        let template = args.value("name") ?? defaultTemplate
        let explicitFormat = opts.output.format
        if let f = explicitFormat { try opts.output.check(for: f, path: outputDir) }
        if explicitFormat == nil && args.value("name") == nil
            && args.positionals.contains(where: { Files.resolved($0) == Files.resolved(outputDir) })
        {
            throw .usage("\(outputDir): the output folder is the input folder; outputs would overwrite the inputs")
        }

        let listed = try items(args, outputDir: outputDir)
        var planned = try plan(listed, outputDir: outputDir, format: explicitFormat, template: template, mode: collisionMode)
        if let shard { planned = planned.filter { inShard($0.item.relative, shard) } }
        // Every output's format is known before any work: an unknown extension stops here.
        var work: [BatchJob.Work] = []
        var warned = Set<ImageFileFormat>()
        var collisionSkips: [BatchItem] = []
        for (item, output) in planned {
            guard let output else { collisionSkips.append(item); continue }
            let format: ImageFileFormat
            if let explicitFormat {
                format = explicitFormat
            } else if !FileManager.default.fileExists(atPath: item.input) {
                format = .png  // never written: reading the missing file fails on its own
            } else {
                guard let f = Files.format(named: (output as NSString).pathExtension) else {
                    throw .usage("cannot tell the output format of '\(output)' (from \(item.input)): pass --format \(Files.formatNames.joined(separator: "|"))")
                }
                format = f
                if warned.insert(f).inserted { try opts.output.check(for: f, path: output) }
            }
            work.append(BatchJob.Work(item: item, output: output, format: format))
        }

        let folders = CreatedFolders()
        try folders.create(outputDir)
        let verbose = args.has("verbose")
        let run = BatchRun(
            total: work.count + collisionSkips.count, showProgress: !verbose && isatty(STDERR_FILENO) == 1, streamsRecords: args.has("jsonl"))
        for item in collisionSkips {
            run.finish(.skipped, line: nil, record: BatchRecord(input: item.input, output: nil, outcome: .skipped, milliseconds: 0, order: -1))
        }
        let context = opts.reading.makeContext(cacheIntermediates: false)
        let workers = max(1, min(jobs, work.count))
        let allWork = work
        let job = BatchJob(work: allWork, options: opts, skipExisting: args.has("skip-existing"), context: context, folders: folders)
        // `workers` files at once, each rendering on the context's executor.
        Executor(width: workers).parallelFor(workers) { _ in
            while let i = run.next(limit: allWork.count) {
                let started = Date()
                let outcome = job.process(i)
                let elapsed = Date().timeIntervalSince(started)
                let w = allWork[i]
                var line: String?
                if verbose {
                    let seconds = String(format: "%.2f s", elapsed)
                    switch outcome {
                    case .written: line = "\(w.item.input) -> \(w.output) (\(seconds))"
                    case .skipped: line = "\(w.item.input) -> skipped (\(w.output) exists)"
                    case .failed: line = nil
                    }
                }
                let record = BatchRecord(input: w.item.input, output: w.output, outcome: outcome, milliseconds: elapsed * 1000, order: i)
                run.finish(outcome, line: line, record: record)
            }
        }
        run.endProgress()
        folders.removeEmpty()
        let s = run.summary(shard: shard)
        Console.err(s.line + "\n")
        if args.has("json") { try Console.print(try JSONText.encode(s.json)) }
        if s.failed > 0 { throw .failure("") }
    }
}

/// Folders a batch made, so those left empty (every file failed) can be removed again.
final class CreatedFolders: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [String] = []

    /// Makes `path` and any missing parents, remembering the ones it made.
    func create(_ path: String) throws(CLIError) {
        lock.lock(); defer { lock.unlock() }
        var missing: [String] = []
        // (URL, not NSString.standardizingPath: swift-corelibs traps on one-letter paths.)
        var url = URL(fileURLWithPath: path).standardizedFileURL
        while url.path != "/", !FileManager.default.fileExists(atPath: url.path) {
            missing.append(url.path)
            url = url.deletingLastPathComponent()
        }
        guard !missing.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .failure("\(path): cannot create the folder (\((error as NSError).localizedDescription))")
        }
        made += missing
    }

    /// Removes the folders it made that are empty, deepest first.
    func removeEmpty() {
        lock.lock(); defer { lock.unlock() }
        for dir in made.sorted(by: { $0.count > $1.count }) {
            if let contents = try? FileManager.default.contentsOfDirectory(atPath: dir), contents.isEmpty {
                try? FileManager.default.removeItem(atPath: dir)
            }
        }
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
    struct Work: Sendable {
        let item: BatchItem
        let output: String
        let format: ImageFileFormat
    }
    let work: [Work]
    let options: ApplyOptions
    let skipExisting: Bool
    let context: CIContext
    let folders: CreatedFolders

    func process(_ index: Int) -> BatchOutcome {
        let w = work[index]
        if skipExisting && FileManager.default.fileExists(atPath: w.output) { return .skipped }
        do throws(CLIError) {
            try Files.checkNotOverwriting(output: w.output, inputs: [w.item.input] + options.specImagePaths)
            try folders.create((w.output as NSString).deletingLastPathComponent)
            try options.process(w.item.input, to: w.output, format: w.format, context: context)
            return .written
        } catch {
            let msg = error.description
            return .failed(msg.hasPrefix(w.item.input) || msg.hasPrefix(w.output) ? msg : "\(w.item.input): \(msg)")
        }
    }
}

/// What one file of a batch came to, as `--json` and `--jsonl` report it.
struct BatchRecord: Sendable {
    let input: String
    /// nil: skipped before any work (another input writes the same output).
    let output: String?
    let outcome: BatchOutcome
    let milliseconds: Double
    /// The file's place in the work list (-1: skipped before any work).
    let order: Int

    var json: [String: Any] {
        let (status, error): (String, String?)
        switch outcome {
        case .written: (status, error) = ("written", nil)
        case .skipped: (status, error) = ("skipped", output == nil ? "another input writes the same output (--on-collision skip)" : "the output exists (--skip-existing)")
        case .failed(let why): (status, error) = ("failed", why)
        }
        return [
            "input": input, "output": output.map { $0 as Any } ?? NSNull(), "status": status, "error": error.map { $0 as Any } ?? NSNull(),
            "milliseconds": (milliseconds * 10).rounded() / 10,
        ]
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
    private var records: [BatchRecord] = []
    private let streamsRecords: Bool

    init(total: Int, showProgress: Bool, streamsRecords: Bool = false) {
        self.total = total
        self.showProgress = showProgress
        self.streamsRecords = streamsRecords
    }

    func next(limit: Int) -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard taken < limit else { return nil }
        taken += 1
        return taken - 1
    }

    /// Counts `outcome`, prints `line` (and an error line) on stderr and, with `--jsonl`, the
    /// record on stdout as one line.
    func finish(_ outcome: BatchOutcome, line: String?, record: BatchRecord) {
        lock.lock(); defer { lock.unlock() }
        done += 1
        records.append(record)
        if streamsRecords, let text = try? JSONText.encode(record.json, pretty: false) {
            try? Console.print(text)  // a reader that went away does not stop the batch
        }
        var text = line.map { $0 + "\n" } ?? ""
        switch outcome {
        case .written: written += 1
        case .skipped: skipped += 1
        case .failed(let why):
            failures.append(why)
            text += "cyanotype batch: error: \(why)\n"
        }
        if showProgress {
            let elapsed = Date().timeIntervalSince(start)
            let rate = elapsed > 0 ? Double(done) / elapsed : 0
            let eta = rate > 0 ? Int(Double(total - done) / rate) : 0
            text =
                (text.isEmpty ? "" : "\r\u{1B}[K" + text)
                + String(format: "\r\u{1B}[K%d/%d  %.1f images/s  ETA %d:%02d", done, total, rate, eta / 60, eta % 60)
        }
        if !text.isEmpty { Console.err(text) }
    }

    func endProgress() {
        if showProgress && total > 0 { Console.err("\r\u{1B}[K") }
    }

    func summary(shard: (index: Int, count: Int)?) -> (line: String, failed: Int, json: [String: Any]) {
        lock.lock(); defer { lock.unlock() }
        let elapsed = Date().timeIntervalSince(start)
        let shardText = shard.map { " (shard \($0.index)/\($0.count))" } ?? ""
        let rate = elapsed > 0 ? Double(written) / elapsed : 0
        let line = String(
            format: "batch%@: %d images, %d written, %d skipped, %d failed in %.2f s (%.1f images/s)",
            shardText, total, written, skipped, failures.count, elapsed, rate)
        var json: [String: Any] = [
            "images": total, "written": written, "skipped": skipped, "failed": failures.count,
            "seconds": (elapsed * 1000).rounded() / 1000, "failures": failures,
        ]
        if let shard { json["shard"] = ["index": shard.index, "count": shard.count] }
        json["files"] = records.sorted { $0.order < $1.order }.map(\.json)
        return (line, failures.count, json)
    }
}
