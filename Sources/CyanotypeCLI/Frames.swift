import Cyanotype
import CyanotypeTool
import Foundation

/// Animations (GIF, APNG, WebP) and multi-page TIFFs through `apply` and `batch`: every frame
/// or page runs through the same pipeline and goes into one output file, with each frame's
/// delay, the loop count and the page order kept. Formats that hold one image (JPEG, HEIF,
/// AVIF) get the first frame, with a warning.
enum Frames {
    /// The formats whose files hold several frames or pages.
    static let multiFrameFormats: Set<ImageFileFormat> = [.gif, .png, .webp, .tiff]

    /// The input as an image source when it holds more than one frame or page; nil otherwise
    /// (read it as one image). Only GIF, PNG, WebP and TIFF files are looked at.
    static func source(_ path: String, reading: FileReading) throws(CLIError) -> CGImageSource? {
        let data: Data
        if path == "-" {
            data = try Files.standardInput()
        } else {
            // A pipe or device would block the open: the one-image read refuses it by name.
            guard Files.specialFileKind(path) == nil, let file = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? file.close() }
            guard let head = try? file.read(upToCount: 32), let f = ImageFileFormat(sniffing: head), multiFrameFormats.contains(f)
            else { return nil }
            // A still PNG or WebP says so in its first chunks: the file is not read whole (and
            // copied twice) just to count one frame.
            let mayBeAnimated = ImageFileHeader.mayHoldSeveralFrames(f) { at, count in
                guard (try? file.seek(toOffset: UInt64(at))) != nil, let bytes = try? file.read(upToCount: count) else { return [] }
                return [UInt8](bytes)
            }
            if !mayBeAnimated { return nil }
            guard let d = FileManager.default.contents(atPath: path) else { return nil }
            data = d
        }
        guard let f = ImageFileFormat(sniffing: data), multiFrameFormats.contains(f) else { return nil }
        var options: [String: Any] = [:]
        if let limits = reading.readOptions[.decodeLimits] as? DecodeLimits { options[kCyanotypeImageSourceDecodeLimits] = limits }
        guard let source = CGImageSourceCreateWithData(data as CFData, options as CFDictionary) else { return nil }
        if let e = source.error { throw .failure(readingMessage(e, file: path)) }
        return source.count > 1 ? source : nil
    }

    static func readingMessage(_ e: ImageIOError, file: String) -> String {
        if case .codec(_, let c) = e { return Messages.reading(c, file: file == "-" ? "<stdin>" : file) }
        return "\(file): \(e.description)"
    }

    /// The frame's delay in seconds as stored (pages of a TIFF: 0.1 s when made an animation).
    static func delay(_ properties: [String: Any]) -> Double {
        for key in [kCGImagePropertyGIFDictionary, kCGImagePropertyPNGDictionary, kCGImagePropertyWebPDictionary] {
            if let d = properties[key] as? [String: Any], let v = d[kCGImagePropertyGIFUnclampedDelayTime] as? Double { return v }
        }
        return 0.1
    }

    /// The file's loop count (0 forever); nil when it says none.
    static func loopCount(_ properties: [String: Any]) -> Int? {
        for key in [kCGImagePropertyGIFDictionary, kCGImagePropertyPNGDictionary, kCGImagePropertyWebPDictionary] {
            if let d = properties[key] as? [String: Any], let v = d[kCGImagePropertyGIFLoopCount] as? Int { return v }
        }
        return nil
    }
}

extension ApplyOptions {
    /// Runs the pipeline over every frame of `source` and writes them to `output`.
    func processFrames(_ source: CGImageSource, input: String, to output: String, format: ImageFileFormat, context: CIContext) throws(CLIError) {
        let name = input == "-" ? "<stdin>" : input
        let count = source.count
        let readOptions: [CIImageOption: Any] = [.applyOrientationProperty: reading.autoOrient]
        func frame(_ i: Int) throws(CLIError) -> CIImage {
            do { return try CIImage(source: source, index: i, options: readOptions) } catch {
                throw .failure(Frames.readingMessage(error, file: input))
            }
        }
        guard Frames.multiFrameFormats.contains(format) else {
            Console.warn("\(name) holds \(count) frames; \(Files.displayName(format)) holds one: writing the first")
            let first = try frame(0)
            let image = try pipeline.run(on: first)
            try check(image, input: input)
            try ImageWriter.write(
                image, source: SourceFacts(properties: first.properties), to: output, format: format, options: self.output,
                uncovers: pipeline.uncovers, keepsEdgesClear: pipeline.geometry.edges == .transparent,
                context: context, input: input)
            return
        }
        let container = CGImageSourceCopyProperties(source, nil) as? [String: Any] ?? [:]
        let o = self.output
        var fileProperties: [String: Any] = [:]
        if let q = o.quality { fileProperties[kCGImageDestinationLossyCompressionQuality] = Double(q) / 100 }
        if o.lossless { fileProperties[CIImageRepresentationOption.lossless.rawValue] = true }
        if let e = o.effort { fileProperties[CIImageRepresentationOption.effort.rawValue] = e }
        if let c = o.compression { fileProperties[CIImageRepresentationOption.compressionLevel.rawValue] = c }
        // A file without a loop count plays once: GIF says so by having none, APNG and WebP with 1.
        if let loops = Frames.loopCount(container) ?? (format == .gif ? nil : 1) {
            fileProperties[kCGImagePropertyGIFDictionary] = [kCGImagePropertyGIFLoopCount: loops]
        }
        let data = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(data, format.typeIdentifier, count, fileProperties as CFDictionary) else {
            throw .failure("\(output): cannot write \(Files.displayName(format)) frames")
        }
        for i in 0..<count {
            let original = try frame(i)
            let facts = SourceFacts(properties: original.properties)
            // The profile kept as for single images (Display P3, unless --strip icc); GIF holds none.
            let space = o.metadata.colorSpace(for: original.properties, format: format)
            var image = try pipeline.run(on: original)
            try check(image, input: input)
            // The alpha rules of single images (ImageWriter): flatten what is not kept.
            let writesAlpha: Bool
            switch o.alpha {
            case .drop: writesAlpha = false
            case .keep: writesAlpha = true
            case .auto: writesAlpha = facts.hasAlpha || pipeline.geometry.edges == .transparent
            }
            if !writesAlpha && (facts.hasAlpha || pipeline.uncovers) {
                image = image.composited(over: CIImage(color: o.background).cropped(to: image.extent))
            }
            let deep = (format == .png || format == .tiff) && o.depth(for: format, sourceDepth: facts.depth) > 8
            let cgFormat: CIFormat = deep ? .RGBA16 : .RGBA8
            let r: (data: Data, width: Int, height: Int, rowBytes: Int)
            do {
                r = try context.renderToData(image, from: image.extent, format: cgFormat, colorSpace: space, premultiplied: false)
            } catch let e as CIRenderError {
                throw Messages.render(e, input: input, output: output)
            } catch {
                throw .failure("\(output): \(error)")
            }
            var pixels = r.data
            if !writesAlpha { ImageData.setOpaque(&pixels, deep: deep) }
            let cg = CGImage(
                width: r.width, height: r.height, bytesPerRow: r.rowBytes, format: cgFormat, colorSpace: space,
                premultiplied: false, data: pixels)
            var properties: [String: Any] = [kCGImagePropertyGIFDictionary: [kCGImagePropertyGIFUnclampedDelayTime: Frames.delay(original.properties)]]
            if i == 0 {
                // The file's EXIF and XMP as for single images (less what --strip drops, the
                // stated size the result's, orientation as the pixels need it).
                let kept = o.metadata.properties(from: original.properties, width: r.width, height: r.height)
                for key in [kCyanotypePropertyRawEXIF, kCyanotypePropertyRawXMP, kCGImagePropertyOrientation] { properties[key] = kept[key] }
                // Grey pages stay grey (TIFF decides page by page) unless a filter made colour.
                if facts.isGray { properties[CIImageRepresentationOption.grayscaleIfNeutral.rawValue] = true }
            }
            do { try destination.add(cg, properties: properties) } catch {
                throw .failure("\(output): frame \(i + 1) of \(name): \(error.description)")
            }
        }
        do { try destination.finalize() } catch { throw Messages.writing(error, input: input, output: output) }
        if output == "-" {
            try Console.out(data as Data)
            return
        }
        do {
            try context.writeAtomically(data as Data, to: URL(fileURLWithPath: output).absoluteURL.standardizedFileURL)
        } catch {
            throw Messages.writing(error, input: input, output: output)
        }
    }

    func check(_ image: CIImage, input: String) throws(CLIError) {
        guard !image.extent.isInfinite else { throw .failure("\(input): the result has no edges (an infinite image); add --crop WxH+X+Y") }
        guard !image.extent.isEmpty else { throw .failure("\(input): the result is empty") }
    }
}

/// Small edits of rendered pixels.
enum ImageData {
    /// Alpha set to opaque (the colour was already flattened onto the background).
    static func setOpaque(_ data: inout Data, deep: Bool) {
        data.withUnsafeMutableBytes { raw in
            if deep {
                let p = raw.bindMemory(to: UInt16.self)
                var i = 3
                while i < p.count { p[i] = 65535; i += 4 }
            } else {
                let p = raw.bindMemory(to: UInt8.self)
                var i = 3
                while i < p.count { p[i] = 255; i += 4 }
            }
        }
    }
}

extension Frames {
    /// `info`'s key for the pages of a multi-page file (Image I/O has none): one dictionary
    /// per page with its PixelWidth, PixelHeight, Depth and ColorModel.
    static let pagesKey = "CyanotypePages"

    /// `info` entries for animations and multi-page files, with Image I/O's keys: the
    /// container's `{GIF}`/`{PNG}`/`{WebP}` dictionary (LoopCount, canvas size, FrameInfo with
    /// each frame's DelayTime and UnclampedDelayTime) and CyanotypeFrameCount; for pages, the
    /// count and `pagesKey`. Empty for single images. A frame table that cannot be read
    /// (truncated, too many frames) is the file's error.
    static func info(_ data: Data, file: String) throws(CLIError) -> [String: Any] {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil) else { return [:] }
        if let e = source.error { throw .failure(readingMessage(e, file: file)) }
        let count = source.count
        var container = CGImageSourceCopyProperties(source, nil) as? [String: Any] ?? [:]
        container[kCGImagePropertyFileSize] = nil
        let animated = animationKeys.contains { container[$0] != nil }
        guard count > 1 || animated else { return [:] }
        if !animated {
            container[pagesKey] = (0..<count).compactMap { CGImageSourceCopyPropertiesAtIndex(source, $0, nil) as? [String: Any] }.map {
                [
                    kCGImagePropertyPixelWidth: $0[kCGImagePropertyPixelWidth] ?? 0, kCGImagePropertyPixelHeight: $0[kCGImagePropertyPixelHeight] ?? 0,
                    kCGImagePropertyDepth: $0[kCGImagePropertyDepth] ?? 0, kCGImagePropertyColorModel: $0[kCGImagePropertyColorModel] ?? "",
                ]
            }
        }
        return container
    }

    /// The keys of Image I/O's animation dictionaries.
    static let animationKeys = [kCGImagePropertyGIFDictionary, kCGImagePropertyPNGDictionary, kCGImagePropertyWebPDictionary]

    /// `info`'s entries merged into the image's properties: a dictionary both have (`{PNG}`
    /// holds a PNG's own facts and an APNG's timing) is merged key by key.
    static func merge(_ entries: [String: Any], into properties: inout [String: Any]) {
        for (key, value) in entries {
            if let d = value as? [String: Any], let old = properties[key] as? [String: Any] {
                properties[key] = old.merging(d) { _, new in new }
            } else {
                properties[key] = value
            }
        }
    }

    /// `info` lines for animations and multi-page files (from `info`'s entries).
    static func infoLines(_ o: [String: Any]) -> [String] {
        guard let count = o[kCyanotypePropertyFrameCount] as? Int else { return [] }
        if let d = animationKeys.lazy.compactMap({ o[$0] as? [String: Any] }).first {
            let delays = (d[kCGImagePropertyGIFFrameInfoArray] as? [[String: Any]] ?? []).map {
                $0[kCGImagePropertyGIFUnclampedDelayTime] as? Double ?? 0
            }
            let loops = d[kCGImagePropertyGIFLoopCount] as? Int
            let total = delays.reduce(0, +)
            let distinct = Set(delays).sorted().map { DescribeCommand.number($0) + " s" }
            return [
                "frames:      \(count) (animation, \(loops.map { $0 == 0 ? "loops forever" : "loop count \($0)" } ?? "no loop count: plays once"))",
                "duration:    \(DescribeCommand.number((total * 1000).rounded() / 1000)) s (delays \(distinct.prefix(6).joined(separator: ", "))\(distinct.count > 6 ? ", ..." : ""))",
            ]
        }
        var lines = ["pages:       \(count)"]
        for (i, p) in (o[pagesKey] as? [[String: Any]] ?? []).prefix(20).enumerated() {
            lines.append("  page \(i + 1): \(p[kCGImagePropertyPixelWidth] ?? 0)x\(p[kCGImagePropertyPixelHeight] ?? 0), \(p[kCGImagePropertyDepth] ?? 0)-bit")
        }
        return lines
    }
}
