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

/// `apply --in-place FILE...`, as ImageMagick's mogrify: each file rewritten with the same
/// work, in its own format, with its metadata (the output rules keep it), through a temporary
/// file beside it renamed over it, so a failure or an interrupt leaves the original whole.
enum InPlace {
    static let option = OptionSpec(
        "--in-place", help: "Rewrite each INPUT (several allowed) in its own format, atomically (a failure keeps the original), instead of -o.")

    static func run(_ args: ParsedArguments, options opts: ApplyOptions) throws(CLIError) {
        if args.has("output") { throw .usage("--in-place rewrites each INPUT: it takes no -o") }
        if args.has("format") { throw .usage("--in-place keeps each file's format: it takes no --format (use -o or batch to convert)") }
        if opts.explain { throw .usage("--explain writes nothing: it does not go with --in-place") }
        if args.positionals.contains("-") { throw .usage("--in-place rewrites files: standard input ('-') cannot be rewritten") }
        var failed = 0
        let context = opts.reading.makeContext()
        for input in args.positionals {
            do throws(CLIError) {
                try rewrite(input, options: opts, context: context)
            } catch {
                if case .brokenPipe = error { throw error }
                if case .usage = error { throw error }
                failed += 1
                Console.err("cyanotype apply: error: \(error.description)\n")
            }
        }
        if failed > 0 { throw .failure("\(failed) of \(args.positionals.count) files were not rewritten (left as they were)") }
    }

    /// Rewrites one file: the result goes to a temporary file beside the real file (a link's
    /// target) and is renamed over it; its permission bits are kept.
    static func rewrite(_ input: String, options opts: ApplyOptions, context: CIContext) throws(CLIError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &isDir) else { throw .failure("\(input): no such file") }
        if isDir.boolValue { throw .failure("\(input): is a folder, not an image file") }
        if let kind = Files.specialFileKind(input) { throw .failure("\(input): not a regular file (\(kind)), so it cannot be rewritten") }
        let target = Files.resolved(input)
        var st = stat()
        guard stat(target, &st) == 0 else { throw .failure("\(input): cannot read the file (\(String(cString: strerror(errno))))") }
        guard let handle = FileHandle(forReadingAtPath: target) else { throw .failure("\(input): cannot read the file") }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        try? handle.close()
        guard let format = ImageFileFormat(sniffing: head) else {
            throw .failure("\(input): not an image this tool reads, so it was left as it was")
        }
        try opts.output.check(for: format, path: input)
        if opts.specImagePaths.contains(where: { Files.resolved($0) == target }) {
            throw .usage("\(input): also used by a filter or --lut, so it cannot be rewritten in place")
        }
        try opts.process(input, to: target, format: format, context: context)
        chmod(target, st.st_mode & 0o7777)
    }
}
