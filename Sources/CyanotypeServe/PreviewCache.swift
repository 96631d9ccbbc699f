import Cyanotype
import CyanotypeTool
import Foundation

/// A source decoded small for live previews: 8-bit straight sRGB RGBA pixels at the size the
/// page shows, and the original's properties (for the output rules).
package final class PreviewSource: @unchecked Sendable {
    /// The pixels, as a bitmap-backed image at the origin.
    package let image: CIImage
    /// The original file's properties, with an 8-bit depth.
    package let properties: [String: Any]
    /// The original's upright size.
    package let sourceWidth: Int, sourceHeight: Int
    /// Memory held (the pixels).
    package let bytes: Int
    /// True when the JPEG decoder's DCT scaling did part of the reduction.
    package let scaledByDecoder: Bool

    init(image: CIImage, properties: [String: Any], sourceWidth: Int, sourceHeight: Int, bytes: Int, scaledByDecoder: Bool) {
        self.image = image
        self.properties = properties
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.bytes = bytes
        self.scaledByDecoder = scaledByDecoder
    }
}

/// Small decoded sources by (file, modification time, size, preview size), least recently
/// used first out, within a memory budget: after the first view, a slider move renders from
/// memory at display size instead of decoding the file again.
package final class PreviewCache: @unchecked Sendable {
    package let budget: Int
    private let lock = NSLock()
    private var entries: [String: (source: PreviewSource, lastUse: UInt64)] = [:]
    private var held = 0
    private var tick: UInt64 = 0
    private var hits = 0, misses = 0

    package init(budget: Int) { self.budget = max(0, budget) }

    package func get(_ key: String) -> PreviewSource? {
        lock.lock(); defer { lock.unlock() }
        tick += 1
        guard let e = entries[key] else { misses += 1; return nil }
        hits += 1
        entries[key] = (e.source, tick)
        return e.source
    }

    /// Keeps `source` under `key`, dropping the least recently used entries to stay within
    /// the budget (a source bigger than the whole budget is not kept).
    package func put(_ key: String, _ source: PreviewSource) {
        lock.lock(); defer { lock.unlock() }
        guard source.bytes <= budget else { return }
        tick += 1
        if let old = entries[key] { held -= old.source.bytes }
        entries[key] = (source, tick)
        held += source.bytes
        while held > budget, let victim = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[victim.key] = nil
            held -= victim.value.source.bytes
        }
    }

    /// Entries, bytes held, hits and misses so far.
    package var statistics: (entries: Int, bytes: Int, hits: Int, misses: Int) {
        lock.lock(); defer { lock.unlock() }
        return (entries.count, held, hits, misses)
    }
}

/// Making a preview source: the file decoded small (TurboJPEG's DCT scaling for JPEGs, a
/// factor of 1/2, 1/4 or 1/8 chosen to stay above the target), turned upright, then resized
/// with the tool's `--resize WxH` (Lanczos over the clamped edges) and kept as 8-bit pixels.
package enum PreviewMaker {
    /// The preview of `data` (a file's bytes) fitted into `width` x `height` as
    /// `cyanotype apply --resize WxH` fits it.
    static func make(
        _ data: Data, name: String, width: Int?, height: Int?, reading: FileReading = FileReading(), context: CIContext
    ) throws(ServeError) -> PreviewSource {
        // A RAW camera file previews from LibRaw's draft (half-size) develop; its size and
        // orientation come from the develop, not from the TIFF thumbnail a DNG starts with.
        let isRAW = CIRAWFilter.isRAWFile(data)
        var header: ImageFileHeader? = nil
        if !isRAW {
            do { header = try ImageFileHeader(reading: data) } catch { throw .unreadable(Messages.reading(error, file: name)) }
        }
        var options = reading.readOptions
        if isRAW {
            var raw = reading.raw
            raw.draft = true
            options[.rawDevelopment] = raw
        }
        let file: CIImage
        do { file = try CIImage.read(data: data, options: options, name: name) } catch {
            if case .codec(_, let e) = error {
                if case .tooLarge = e { throw .tooLarge(Messages.reading(e, file: name)) }
                throw .unreadable(Messages.reading(e, file: name))
            }
            throw .unreadable("\(name): \(error.description)")
        }
        let orientation = header?.orientation ?? (file.properties[kCGImagePropertyOrientation] as? Int ?? 1)
        let storedWidth = header?.width ?? PixelSize(file.extent).width, storedHeight = header?.height ?? PixelSize(file.extent).height
        let turned = orientation >= 5 && orientation <= 8
        let W = turned ? storedHeight : storedWidth, H = turned ? storedWidth : storedHeight
        let fit = ResizeSpec(mode: .fit, width: width, height: height)
        let (tw, th) = fit.scaledSize(W, H) ?? (W, H)
        var properties = file.properties
        properties[kCGImagePropertyDepth] = 8
        var geometry = GeometryOptions()
        var image = file
        var byDecoder = false
        if let header, header.format == .jpeg, header.isSRGB,
            let scaled = ScaledJPEG.decode(data, atLeast: turned ? th : tw, turned ? tw : th)
        {
            var small = CIImage(
                unpremultipliedBitmapData: scaled.pixels, bytesPerRow: scaled.width * 4,
                size: CGSize(width: scaled.width, height: scaled.height), format: .RGBA8,
                colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
            if orientation != 1 { small = geometry.atOrigin(small.oriented(forExifOrientation: Int32(orientation))) }
            image = small
            byDecoder = true
            geometry.resize = ResizeSpec(mode: .exact, width: tw, height: th)
        } else {
            geometry.resize = fit
        }
        let resized: CIImage
        do { resized = try geometry.applyAfterFilters(image) } catch { throw .renderFailed(error.description) }
        let rendered: (data: Data, width: Int, height: Int, rowBytes: Int)
        do {
            rendered = try context.renderToData(
                resized, from: resized.extent, format: .RGBA8,
                colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false)
        } catch let e as CIRenderError {
            throw RenderService.failure(Messages.render(e, input: name, output: "the preview"))
        } catch {
            throw .renderFailed("\(name): \(error)")
        }
        let pixels = CIImage(
            unpremultipliedBitmapData: rendered.data, bytesPerRow: rendered.rowBytes,
            size: CGSize(width: rendered.width, height: rendered.height), format: .RGBA8,
            colorSpace: CGColorSpace(name: CGColorSpace.sRGB)
        ).settingProperties(properties)
        return PreviewSource(
            image: pixels, properties: properties, sourceWidth: W, sourceHeight: H,
            bytes: rendered.data.count, scaledByDecoder: byDecoder)
    }
}
