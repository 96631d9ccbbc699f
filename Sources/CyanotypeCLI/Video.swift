import Cyanotype
import CyanotypeTool
import CyanotypeVideo
import Foundation
import Instafilter

/// `cyanotype video`: apply's looks on every frame of a movie (or one frame as an image), on
/// CyanotypeVideo's AVFoundation-named API.
enum VideoCommand {
    static let spec = CommandSpec(
        "video", positionals: ["INPUT", "INPUT2?"],
        summary: "Filter every frame of a video (or join two with a transition, or take one frame as an image).",
        options: [
            OptionSpec("--output", short: "-o", value: "OUTPUT", help: "The movie to write (.mp4, .mov, .m4v, .mkv, .webm), or an image with --frame."),
            OptionSpec(
                "--filter", short: "-f", value: "SPEC", repeatable: true,
                help: "A filter and its inputs; numbers may be keyframes VALUE@SECONDS,... e.g. 'gaussianBlur radius=0@0,20@5'."),
            OptionSpec("--lut", value: "FILE", help: "Apply a 3D LUT after the filters: .cube, .3dl, a LUT image, or a built-in look name."),
            OptionSpec("--lut-layout", value: "LAYOUT", help: "How a LUT image is laid out: tiles, hald or strip (default: from its shape)."),
            OptionSpec("--interp", value: "MODE", help: "LUT interpolation: tetrahedral (default) or trilinear."),
            OptionSpec("--preset", value: "NAME", help: "Apply a named look after the filters and the LUT (see 'cyanotype preset list')."),
            OptionSpec("--intensity", value: "X", help: "Strength 0 to 1 (default 1) of --preset, or of --lut when there is no preset."),
            WorkingSpace.option,
            Origin.option,
            OptionSpec("--codec", value: "CODEC", help: "h264 (default; vp9 for .webm), hevc, av1, vp9, prores (.mov), ffv1 or rawvideo (.mkv)."),
            OptionSpec("--crf", value: "N", help: "Quality for h264/hevc/av1/vp9, 0-63 (lower is better; default h264 18, hevc 22, av1/vp9 32)."),
            OptionSpec("--speed", value: "NAME", help: "The encoder's preset: x264/x265 ultrafast...veryslow (default medium), av1 0-13, vp9 -8..8, prores proxy/lt/standard/hq."),
            OptionSpec("--bit-depth", value: "BITS", help: "8 (default) or 10 bits per sample."),
            OptionSpec("--max-size", value: "PX", help: "Downscale (Lanczos) so the long edge is at most PX; never upscales."),
            OptionSpec("--start", value: "S", help: "Start at S seconds into INPUT."),
            OptionSpec("--duration", value: "S", help: "Keep S seconds."),
            OptionSpec("--transition", value: "SPEC", help: "Join INPUT and INPUT2 with a Core Image transition, e.g. 'dissolveTransition'."),
            OptionSpec("--transition-duration", value: "S", help: "How long the two clips overlap (default 1; at most the shorter clip)."),
            OptionSpec("--frame", value: "S", help: "Write the (filtered) frame shown at S seconds as an image instead of a movie."),
            OptionSpec("--quality", short: "-q", value: "Q", help: "JPEG/WebP quality 0-100 for --frame (default 90)."),
            OptionSpec("--no-audio", help: "Leave the audio out (it is otherwise copied unchanged, cut to the range; AAC where the container needs it)."),
            OptionSpec("--keep-rotation", help: "Keep a phone clip's rotation as metadata instead of turning the pixels upright (frames filtered as stored)."),
            OptionSpec("--fast-start", help: "Put the MP4/QuickTime index first (for streaming)."),
            OptionSpec("--quiet", help: "No progress line."),
        ],
        notes: ApplyOptions.specSyntaxNotes + """


            Order: the transition, the filters in the order given, the LUT, the preset, then
            --max-size. Filters that read past the frame's edges (blurs, sharpening) see its edge
            pixels repeated, so borders stay solid. --lut takes what apply's does (a .cube/.3dl
            file, a LUT image, or a built-in look name); --intensity applies to --preset when
            there is one, otherwise to --lut.

            Keyframes: any number in a SPEC may be VALUE@SECONDS pairs, linear between them and held
            outside (times on the input's timeline): 'gaussianBlur radius=0@0,50@5' is Apple's growing
            blur. In a vector, each component may be keyframed: 'vignetteEffect center=[100@0,300@4 200]'.
            Audio is copied packet for packet, except where the container cannot hold it (Opus or FLAC
            in .mov, FLAC in .mp4): re-encoded as AAC, with a note. .webm is VP9 (or AV1) with Opus or
            Vorbis audio. Timestamps are kept, so every frame of the range is written once and variable
            frame rates stay variable. The output is written to a temporary file and renamed into
            place; a failed or interrupted run leaves nothing.

            Examples:
              cyanotype video clip.mp4 -o graded.mp4 --lut film.cube --crf 20 --speed veryfast
              cyanotype video clip.mp4 -o blur.mp4 --filter 'gaussianBlur radius=0@0,50@5'
              cyanotype video clip.mov -o small.mp4 --max-size 1280 --start 10 --duration 5 --preset clarendon
              cyanotype video a.mp4 b.mp4 -o joined.mp4 --transition 'swipeTransition angle=0.5' --transition-duration 1
              cyanotype video clip.mp4 --frame 2.5 -o poster.jpg --filter 'sepiaTone intensity=0.8'
              cyanotype video clip.mp4 -o master.mkv --codec ffv1
            """)

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard let output = args.value("output") else { throw .usage("missing -o OUTPUT for 'video'") }
        let inputs = args.positionals
        for path in inputs where !FileManager.default.fileExists(atPath: path) { throw .failure("\(path): no such file") }
        var imagePaths: [String] = []
        let reading = try FileReading.parse(args)
        let loader: ValueParser.ImageLoader = { (path: String) throws(CLIError) -> CIImage in
            imagePaths.append(path)
            return try reading.readImage(path)
        }
        let filters = try args.all("filter").map { (text: String) throws(CLIError) in try AnimatedFilter(parsing: text, loadImage: loader) }
        // LUT, preset and intensity as apply reads them (filters are ours: they may be keyframed).
        var lookArgs = args
        for key in ["filter", "max-size", "quality", "output"] { lookArgs.values[key] = nil }
        let look = try ApplyOptions(lookArgs)
        let transition = try args.value("transition").map { (text: String) throws(CLIError) in try AnimatedFilter(parsing: text, loadImage: loader) }
        if let t = transition {
            guard t.resolved.descriptor.input(kCIInputTargetImageKey) != nil, t.resolved.descriptor.input(kCIInputTimeKey) != nil else {
                throw .usage("--transition needs a transition filter (one with inputTargetImage and inputTime), not \(t.resolved.descriptor.name)")
            }
            guard inputs.count == 2 else { throw .usage("--transition joins two clips: give INPUT and INPUT2") }
        }
        if args.has("transition-duration") && transition == nil { throw .usage("--transition-duration needs --transition") }
        let overlap = try seconds(args, "transition-duration") ?? (transition == nil ? 0 : 1)
        let maxSize = try args.int("max-size", in: 2...16384)
        let start = try seconds(args, "start"), duration = try seconds(args, "duration")
        if inputs.count == 2 && (start != nil || duration != nil) { throw .usage("--start and --duration work on one input; cut the clips first") }
        if let duration, duration <= 0 { throw .usage("--duration must be above 0") }
        try Files.checkNotOverwriting(output: output, inputs: inputs + imagePaths + look.specImagePaths)

        let assets = inputs.map { AVURLAsset(url: URL(fileURLWithPath: $0)) }
        if transition != nil {
            // The overlap must fit in each clip: refused with the numbers, never shortened.
            for (path, a) in zip(inputs, assets) {
                let length = a.duration.seconds
                guard length.isFinite, length > 0, overlap > length + 1e-6 else { continue }
                throw .usage(
                    String(format: "--transition-duration %@ s is longer than %@, which lasts %.3f s; give at most that", numberText(overlap), path, length))
            }
        }
        let asset: AVAsset = assets.count == 2 ? assets[0].appending(assets[1], overlap: CMTime(seconds: overlap, preferredTimescale: 90_000)) : assets[0]
        let pipeline = look.pipeline
        let hasLook = !filters.isEmpty || pipeline.lut != nil || pipeline.preset != nil || transition != nil
        // The frame's look at composition time t: transition, filters in order, LUT, preset.
        let apply: @Sendable (CIImage, CIImage?, Double, Double) throws(CLIError) -> CIImage = { source, over, progress, t in
            var image = source
            if let transition, let over {
                image = try transition.apply(
                    to: image, at: t, overriding: [kCIInputTargetImageKey: over, kCIInputTimeKey: NSNumber(value: progress)],
                    in: pipeline)
            }
            image = try pipeline.applying(filters.map { $0.resolved(at: t) }, to: image)
            return try pipeline.run(on: image)
        }

        if let frameText = args.value("frame") {
            guard inputs.count == 1 else { throw .usage("--frame takes one input") }
            try poster(asset, at: frameText, output: output, args: args, maxSize: maxSize, apply: apply)
            return
        }
        if args.has("quality") { throw .usage("--quality is for --frame images; movies use --crf") }
        guard let type = AVFileType(pathExtension: (output as NSString).pathExtension) else {
            throw .usage("the output must be a .mp4, .mov, .m4v, .mkv or .webm movie (or use --frame S for an image), not '\(output)'")
        }
        let codec: VideoCodec
        if let name = args.value("codec") {
            guard let c = VideoCodec(rawValue: name.lowercased()) else {
                throw .usage("--codec must be one of \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'")
            }
            codec = c
        } else {
            // WebM holds VP9 or AV1 only.
            codec = type == .webm ? .vp9 : .h264
        }
        guard codec.isAvailable else { throw .failure("the \(codec.encoderName) encoder is not in this build of FFmpeg") }
        let preset: String
        switch codec {
        case .hevc: preset = AVAssetExportPresetHEVCHighestQuality
        case .prores: preset = AVAssetExportPresetAppleProRes422LPCM
        default: preset = AVAssetExportPresetHighestQuality
        }
        guard let session = AVAssetExportSession(asset: asset, presetName: preset) else {
            throw .failure("cannot export with \(codec.encoderName)")
        }
        session.outputURL = URL(fileURLWithPath: output)
        session.outputFileType = type
        session.videoCodec = codec
        session.quality = try args.int("crf", in: 0...63)
        session.encoderSpeed = args.value("speed")
        if let depth = try args.int("bit-depth", in: 8...10) {
            guard depth == 8 || depth == 10 else { throw .usage("--bit-depth must be 8 or 10") }
            session.outputBitDepth = depth
        }
        session.maximumOutputEdge = maxSize
        session.includesAudio = !args.has("no-audio")
        session.keepsRotationMetadata = args.has("keep-rotation")
        session.shouldOptimizeForNetworkUse = args.has("fast-start")
        if start != nil || duration != nil {
            let s = CMTime(seconds: start ?? 0, preferredTimescale: 90_000)
            session.timeRange = CMTimeRange(start: s, duration: duration.map { CMTime(seconds: $0, preferredTimescale: 90_000) } ?? .positiveInfinity)
        }
        if hasLook {
            session.videoComposition = AVMutableVideoComposition(
                asset: asset,
                applyingCIFiltersWithHandler: { request in
                    do {
                        let t = CMTimeGetSeconds(request.compositionTime)
                        let image = try apply(request.sourceImage, request.overlappingImage, request.overlapProgress, t)
                        request.finish(with: image, context: nil)
                    } catch {
                        request.finish(with: error)
                    }
                })
        }
        try export(session, output: output, quiet: args.has("quiet"))
    }

    /// A number of seconds as typed back to the user (no trailing zeros).
    static func numberText(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v) }

    /// A non-negative number of seconds.
    static func seconds(_ args: ParsedArguments, _ key: String) throws(CLIError) -> Double? {
        guard let text = args.value(key) else { return nil }
        guard let v = Double(text), v.isFinite, v >= 0 else { throw .usage("--\(key) expects seconds (a number >= 0), got '\(text)'") }
        return v
    }

    /// Runs the export, showing frames, speed and time left on a terminal; one summary line.
    static func export(_ session: AVAssetExportSession, output: String, quiet: Bool) throws(CLIError) {
        let done = DispatchSemaphore(value: 0)
        let started = Date()
        // Ctrl-C, TERM or HUP cancels the export (its temporary file removed); a second one ends at once.
        Interrupts.setCancelAction { session.cancelExport() }
        defer { Interrupts.setCancelAction(nil) }
        session.exportAsynchronously { done.signal() }
        let terminal = !quiet && isatty(2) != 0
        var shown = false
        while done.wait(timeout: .now() + .milliseconds(250)) == .timedOut {
            guard terminal else { continue }
            let elapsed = Date().timeIntervalSince(started)
            let frames = session.framesWritten
            let p = Double(session.progress)
            let fps = elapsed > 0 ? Double(frames) / elapsed : 0
            let eta = p > 0.01 ? elapsed * (1 - p) / p : 0
            let line = String(format: "\r  %3.0f%%  frame %d  %.1f fps  ETA %.0f s   ", p * 100, frames, fps, eta)
            Console.err(line)
            shown = true
        }
        if shown { Console.err("\r\u{1B}[K") }
        for note in session.notes { Console.note(note) }
        switch session.status {
        case .completed:
            let elapsed = Date().timeIntervalSince(started)
            let frames = session.framesWritten
            let size = ((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0)
            try Console.print(
                String(
                    format: "%@: %d frames, %@, %.1f MB in %.1f s (%.1f fps)", output, frames, session.videoCodec.rawValue,
                    Double(size) / 1e6, elapsed, elapsed > 0 ? Double(frames) / elapsed : 0))
        case .cancelled:
            throw .failure("interrupted: the export was cancelled and \(output) was not written")
        default:
            throw .failure(session.error.map { "\($0)" } ?? "the export failed")
        }
    }

    /// `--frame S`: the frame shown at S seconds, through the look, written as an image.
    static func poster(
        _ asset: AVAsset, at text: String, output: String, args: ParsedArguments, maxSize: Int?,
        apply: (CIImage, CIImage?, Double, Double) throws(CLIError) -> CIImage
    ) throws(CLIError) {
        guard let t = Double(text), t.isFinite, t >= 0 else { throw .usage("--frame expects seconds (a number >= 0), got '\(text)'") }
        for key in ["codec", "crf", "speed", "bit-depth", "start", "duration", "transition", "no-audio", "keep-rotation", "fast-start"] where args.has(key) {
            throw .usage("--\(key) does not apply to --frame")
        }
        let format = try Files.outputFormat(explicit: nil, path: output)
        var options = OutputOptions()
        options.quality = try args.int("quality", in: 0...100)
        try options.check(for: format, path: output)
        let generator = AVAssetImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = true
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let frame: CIImage
        do { frame = try generator.ciImage(at: CMTime(seconds: t, preferredTimescale: 90_000)).image } catch { throw .failure(error.description) }
        var image = try apply(frame, nil, 0, t)
        if let maxSize {
            var resize = Pipeline()
            resize.geometry.maxSize = maxSize
            image = try resize.run(on: image)
        }
        // A video frame is opaque 8-bit colour: the image is written so.
        try ImageWriter.write(
            image, source: SourceFacts(properties: [kCGImagePropertyHasAlpha: false]), to: output, format: format,
            options: options, uncovers: false, keepsEdgesClear: false, context: FileReading.parse(args).makeContext(), input: nil)
        try Console.print("\(output): frame at \(text) s, \(Int(image.extent.width))x\(Int(image.extent.height))")
    }
}

/// `cyanotype info` on a movie: container, duration, streams, rotation, colour tags.
enum VideoInfo {
    static let extensions: Set<String> = [
        "mp4", "m4v", "mov", "qt", "mkv", "webm", "avi", "y4m", "ts", "mts", "m2ts", "mpg", "mpeg",
        "flv", "wmv", "3gp", "ogv", "nut", "mxf",
    ]
}
