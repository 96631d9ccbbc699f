/// Options for `CIContext(options:)`, with Core Image's names.
public struct CIContextOption: RawRepresentable, Hashable, Sendable {
    /// The option's string key.
    public let rawValue: String
    /// The option with this key.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A `CGColorSpace` (its linear form is used) or `NSNull()` for no colour management.
    public static let workingColorSpace = CIContextOption(rawValue: "working_color_space")
    /// Accepted for compatibility; the CPU renderer always works in 32-bit float.
    public static let workingFormat = CIContextOption(rawValue: "working_format")
    /// Default output colour space, or `NSNull()` to write working values unconverted.
    public static let outputColorSpace = CIContextOption(rawValue: "output_color_space")
    /// Bool: whether rendered RGBA memory is premultiplied (default true, as Core Image).
    public static let outputPremultiplied = CIContextOption(rawValue: "output_premultiplied")
    /// Bool: keep intermediates between renders (default true).
    public static let cacheIntermediates = CIContextOption(rawValue: "kCIContextCacheIntermediates")
    /// Accepted for compatibility: rendering is always on the CPU.
    public static let useSoftwareRenderer = CIContextOption(rawValue: "software_renderer")
    /// Bool, accepted for compatibility and ignored: Core Image's multi-pass downsampling of
    /// transformed images; here `transformed(by:highQualityDownsample:)` chooses per image.
    public static let highQualityDownsample = CIContextOption(rawValue: "high_quality_downsample")
    /// Bool, accepted for compatibility: Core Image's lower GPU priority for background renders.
    public static let priorityRequestLow = CIContextOption(rawValue: "priority_request_low")
    /// Bool, accepted for compatibility: Core Image's choice of a low-power GPU.
    public static let allowLowPower = CIContextOption(rawValue: "allow_low_power")
    /// A name for the context, accepted for compatibility (Core Image shows it in its logs).
    public static let name = CIContextOption(rawValue: "name")
    /// Int: tile side in pixels, overriding the renderer's choice (tuning and tests).
    public static let tileSize = CIContextOption(rawValue: "cyanotype_tile_size")
    /// Int: the most pixels one render may produce (default 1 gigapixel).
    public static let maximumRenderPixels = CIContextOption(rawValue: "cyanotype_maximum_render_pixels")
}

/// Why a render could not run.
public enum CIRenderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The image is infinite and no finite bounds were given.
    case infiniteExtent
    /// The bounds hold no pixel.
    case emptyBounds
    /// The render is above `CIContextOption.maximumRenderPixels`.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// The destination's pixel format is not one this renderer writes.
    case unsupportedFormat(CIFormat)
    /// The destination buffer is smaller than the render (sizes in bytes).
    case bufferTooSmall(needed: Int, given: Int)
    /// A source (a file, a decoder on its thread) failed while the render read it.
    case sourceFailed(String)
    /// The render's `CIRenderJob` was cancelled; nothing it computed is kept.
    case cancelled
    /// The plan's estimated memory is over the `CIRenderJob`'s budget (bytes); nothing ran.
    case overMemoryBudget(estimated: Int, limit: Int)

    /// What went wrong, in words a user can act on.
    public var description: String {
        switch self {
        case .infiniteExtent: return "the image has an infinite extent: crop it (cropped(to:)) or pass finite bounds to render"
        case .emptyBounds: return "nothing to render: the bounds are empty or outside every pixel"
        case let .tooLarge(w, h, limit): return "render of \(w)x\(h) pixels is above the context's limit of \(limit) pixels (CIContextOption.maximumRenderPixels)"
        case let .unsupportedFormat(f): return "pixel format \(f) is not supported for rendering"
        case let .bufferTooSmall(needed, given): return "destination buffer holds \(given) bytes but the render needs \(needed)"
        case let .sourceFailed(why): return "a source image could not be read: \(why)"
        case .cancelled: return "the render was cancelled"
        case let .overMemoryBudget(estimated, limit):
            return "the render would need about \(CIRenderError.megabytes(estimated)) MB, over the memory budget of \(CIRenderError.megabytes(limit)) MB"
        }
    }
}

extension CIRenderError {
    /// Bytes as whole megabytes (MiB, rounded up), as the messages print them (the server's
    /// too).
    package static func megabytes(_ bytes: Int) -> Int { (bytes + (1 << 20) - 1) >> 20 }
}

/// Renders recipes to memory. Immutable configuration, an executor every parallel loop of its
/// renders runs on, and a cache of intermediates and whole results (reductions, k-means)
/// under one memory budget, so one context is safe to share across threads, as Core Image's
/// is. A render runs: recipe -> optimiser (`Optimizer`) -> plan (`RenderPlan`) -> tiles on the
/// executor.
public final class CIContext: @unchecked Sendable {
    /// nil means no colour management (`NSNull` working space).
    public let workingColorSpace: CGColorSpace?
    /// nil means write working values unconverted.
    public let outputColorSpace: CGColorSpace?
    /// The format of intermediate buffers: always 32-bit float here (`.workingFormat` in the
    /// options is accepted and ignored).
    public var workingFormat: CIFormat { .RGBAf }
    let outputPremultiplied: Bool
    let cachesIntermediates: Bool
    let maximumRenderPixels: Int
    let tileSizeOverride: Int?
    /// Where this context's renders run their parallel loops (bound to the context's job, if
    /// any).
    let executor: Executor
    /// Intermediates and whole results kept between renders (when `cachesIntermediates`).
    let cache: RenderCache
    /// Parsed LUT files (`lut(contentsOf:)`), kept while each file is unchanged.
    let lutFiles: LUTFileCache
    private let lock = NSLock()
    private var stats = RenderStatistics()
    /// The memory the context's cache may hold.
    static let cacheBudget = 512 << 20

    /// A context with the default options: linear extended sRGB working space, sRGB output.
    public convenience init() { self.init(options: nil) }

    /// A context configured by `options` (see `CIContextOption`); unknown keys are ignored.
    public init(options: [CIContextOption: Any]?) {
        let o = options ?? [:]
        if o[.workingColorSpace] is NSNull { workingColorSpace = nil } else { workingColorSpace = .extendedLinearSRGBSpace }
        if o[.outputColorSpace] is NSNull { outputColorSpace = nil } else { outputColorSpace = (o[.outputColorSpace] as? CGColorSpace) ?? .sRGBSpace }
        outputPremultiplied = (o[.outputPremultiplied] as? Bool) ?? true
        cachesIntermediates = (o[.cacheIntermediates] as? Bool) ?? true
        maximumRenderPixels = (o[.maximumRenderPixels] as? Int) ?? (1 << 30)
        tileSizeOverride = (o[.tileSize] as? Int).map { max(1, $0) }
        executor = Executor()
        cache = RenderCache(budget: CIContext.cacheBudget)
        lutFiles = LUTFileCache(budget: 64 << 20)
    }

    /// A context like `parent` (options, executor width, caches shared) whose renders belong
    /// to `job`.
    private init(sharing parent: CIContext, job: CIRenderJob) {
        workingColorSpace = parent.workingColorSpace
        outputColorSpace = parent.outputColorSpace
        outputPremultiplied = parent.outputPremultiplied
        cachesIntermediates = parent.cachesIntermediates
        maximumRenderPixels = parent.maximumRenderPixels
        tileSizeOverride = parent.tileSizeOverride
        executor = parent.executor.bound(to: job)
        cache = parent.cache
        lutFiles = parent.lutFiles
    }

    /// Cyanotype: this context for the renders of one `CIRenderJob`: every render and encode
    /// made through the returned context (same options, same caches) can be cancelled with
    /// `job.cancel()` and is refused when its plan is over `job.memoryBudget`. Cheap: make one
    /// per request.
    public func forJob(_ job: CIRenderJob) -> CIContext { CIContext(sharing: self, job: job) }

    /// The job this context's renders belong to (`forJob(_:)`), if any.
    public var job: CIRenderJob? { executor.job }

    /// Counters from the most recent render on this context.
    public var lastRenderStatistics: RenderStatistics { lock.lock(); defer { lock.unlock() }; return stats }

    /// Drops cached intermediates and whole results.
    public func clearCaches() {
        cache.removeAll()
        lutFiles.removeAll()
    }

    // MARK: Rendering

    /// Core Image's render-to-memory. A nil `colorSpace` means the context's output colour
    /// space, as in Core Image. Errors (see `renderChecked`) leave the buffer untouched, but
    /// for a cancelled job's render (`CIRenderError.cancelled`), which may have written part.
    public func render(_ image: CIImage, toBitmap data: UnsafeMutableRawPointer, rowBytes: Int, bounds: CGRect, format: CIFormat, colorSpace: CGColorSpace?) {
        try? renderChecked(image, toBitmap: data, rowBytes: rowBytes, bounds: bounds, format: format, colorSpace: colorSpace)
    }

    /// As `render(_:toBitmap:...)`, throwing `CIRenderError` instead of failing silently.
    public func renderChecked(
        _ image: CIImage, toBitmap data: UnsafeMutableRawPointer, rowBytes: Int, bounds: CGRect, format: CIFormat, colorSpace: CGColorSpace?, premultiplied: Bool? = nil
    ) throws {
        let rect = try renderablePixels(Self.wholePixels(bounds))
        let space = workingColorSpace == nil ? nil : (colorSpace ?? outputColorSpace)
        guard
            let writer = DestinationWriter(
                base: data, rowBytes: rowBytes, bounds: rect, format: format, colorSpace: space,
                premultiplied: premultiplied ?? outputPremultiplied, asValues: image.node.traits.producesData)
        else { throw CIRenderError.unsupportedFormat(format) }
        guard rowBytes >= rect.width * writer.bytesPerPixel else {
            throw CIRenderError.bufferTooSmall(needed: rect.width * writer.bytesPerPixel * rect.height, given: rowBytes * rect.height)
        }
        try Render(node: image.node, rect: rect, delivery: .bitmap(writer, lendsUnchanged: false), environment: environment).run()
    }

    /// What this context lends each of its renders (`Render`): its executor (bound to its
    /// job), colour management, cache, tile size, and where the counters go.
    var environment: RenderEnvironment {
        RenderEnvironment(
            executor: executor, colorManaged: workingColorSpace != nil, cache: cachesIntermediates ? cache : nil,
            tileSize: tileSizeOverride,
            record: { [self] statistics in
                lock.lock(); stats = statistics; lock.unlock()
            })
    }

    /// The pixels covering `rect`, or the error for a rectangle no render can fill: infinite
    /// or beyond the pixel limit, empty, or more pixels than `maximumRenderPixels`.
    /// The whole-pixel rectangle a bitmap render of `bounds` fills: `bounds` itself when it
    /// lies on whole pixels; otherwise its origin and size rounded to the nearest pixel, so a
    /// caller who sized the buffer from `bounds.size` (`CGRect(x: face.bounds.midX, y: ...,
    /// width: 1, height: 1)`) gets that many pixels, not a refusal for the two it straddles.
    static func wholePixels(_ bounds: CGRect) -> CGRect {
        guard !bounds.isNull, !bounds.isInfiniteOrHuge else { return bounds }
        let r = bounds.standardized
        func snap(_ v: CGFloat) -> CGFloat { (v + 0.5).rounded(.down) }
        return CGRect(x: snap(r.minX), y: snap(r.minY), width: snap(r.width), height: snap(r.height))
    }

    func renderablePixels(_ rect: CGRect) throws -> PixelRect {
        guard !rect.isInfiniteOrHuge else { throw CIRenderError.infiniteExtent }
        let pr = PixelRect(covering: rect)
        guard !pr.isEmpty else { throw CIRenderError.emptyBounds }
        guard pr.area <= maximumRenderPixels else { throw CIRenderError.tooLarge(width: pr.width, height: pr.height, limit: maximumRenderPixels) }
        return pr
    }

    /// Renders `rect` of `image` into a new buffer of `format`, rows top-down.
    public func renderToData(_ image: CIImage, from rect: CGRect, format: CIFormat = .RGBA8, colorSpace: CGColorSpace? = nil, premultiplied: Bool? = nil) throws -> (
        data: Data, width: Int, height: Int, rowBytes: Int
    ) {
        let pr = try renderablePixels(rect)
        guard let bpp = format.bytesPerPixel else { throw CIRenderError.unsupportedFormat(format) }
        let rowBytes = pr.width * bpp
        var data = Data(count: rowBytes * pr.height)
        try data.withUnsafeMutableBytes { raw in
            try renderChecked(
                image, toBitmap: raw.baseAddress!, rowBytes: rowBytes, bounds: pr.cgRect, format: format,
                colorSpace: colorSpace ?? outputColorSpace, premultiplied: premultiplied)
        }
        return (data, pr.width, pr.height, rowBytes)
    }

    /// A bitmap of `rect` of `image` (RGBA8 in the output colour space, premultiplied).
    public func createCGImage(_ image: CIImage, from rect: CGRect) -> CGImage? {
        createCGImage(image, from: rect, format: .RGBA8, colorSpace: outputColorSpace)
    }

    /// A bitmap of `rect` of `image` in `format` and `colorSpace` (nil: the context's output space);
    /// nil when the render fails.
    public func createCGImage(_ image: CIImage, from rect: CGRect, format: CIFormat, colorSpace: CGColorSpace?) -> CGImage? {
        guard let r = try? renderToData(image, from: rect, format: format, colorSpace: colorSpace) else { return nil }
        return CGImage(
            width: r.width, height: r.height, bytesPerRow: r.rowBytes, format: format, colorSpace: colorSpace ?? outputColorSpace,
            premultiplied: outputPremultiplied, data: r.data)
    }

    /// The plan the renderer would use for `rect` of `image` (default: its extent), without
    /// rendering: regions of interest, fused groups, intermediates, tiles, memory.
    public func explain(_ image: CIImage, rect: CGRect? = nil) -> String {
        let r = PixelRect(covering: rect ?? image.extent).intersection(.huge)
        return RenderPlan(recipe: explained(image.node, writer: nil, loadSources: false), rect: r, tileSize: tileSizeOverride).describe()
    }

    /// Cyanotype: the memory `explain` estimates for rendering `rect` of `image` (default: its
    /// extent), in bytes: materialised intermediates, the inputs of whole-image nodes, and
    /// each core's tile buffers with their halos. Nothing is decoded or rendered; a job's
    /// memory budget is checked against the same figure for the plan the render makes.
    public func estimatedMemory(of image: CIImage, rect: CGRect? = nil) -> Int {
        let r = PixelRect(covering: rect ?? image.extent).intersection(.huge)
        return RenderPlan(recipe: explained(image.node, writer: nil, loadSources: false), rect: r, tileSize: tileSizeOverride).estimatedMemory
    }

    /// The optimised recipe `explain` shows (never failing: a source that cannot be loaded is
    /// shown as it is).
    private func explained(_ node: RecipeNode, writer: DestinationWriter?, loadSources: Bool) -> OptimizedRecipe {
        let managed = workingColorSpace != nil
        if loadSources, let r = try? Optimizer.optimize(node, Optimizer.Options(loadSources: true, writer: writer, colorManaged: managed)) {
            return r
        }
        return (try? Optimizer.optimize(node, Optimizer.Options(loadSources: false, writer: writer, colorManaged: managed)))
            ?? OptimizedRecipe(unoptimized: node)
    }

    /// The plan for rendering `rect` of `image` into a `format` bitmap in `colorSpace` (nil:
    /// the context's output space), after what the destination changes at render time: a
    /// trailing "from sRGB" conversion folds into an 8/16-bit sRGB write (values stored as
    /// they are), a leading "to sRGB" one into the read of an 8/16-bit sRGB bitmap (codes read
    /// as values). Ends with a line saying how pixels are written (`premultiplied`: nil for
    /// the context's output option). A file source is decoded to see its format, as the
    /// render would.
    public func explain(_ image: CIImage, rect: CGRect? = nil, format: CIFormat, colorSpace: CGColorSpace? = nil, premultiplied: Bool? = nil) -> String {
        let r = PixelRect(covering: rect ?? image.extent).intersection(.huge)
        let space = workingColorSpace == nil ? nil : (colorSpace ?? outputColorSpace)
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)  // nothing is written
        defer { scratch.deallocate() }
        let premultipliedOut = premultiplied ?? outputPremultiplied
        guard
            let writer = DestinationWriter(
                base: scratch, rowBytes: 0, bounds: r, format: format, colorSpace: space,
                premultiplied: premultipliedOut)
        else { return explain(image, rect: rect) + "\nwrite: \(format) is not a format this context renders to" }
        let recipe = explained(image.node, writer: writer, loadSources: true)
        let w = recipe.writer ?? writer
        let spaceName = space?.name ?? "no colour management"
        let how: String
        if space == nil {
            how = "working values as they are"
        } else if w.space == nil {
            how = "values as they are (the conversion to \(spaceName) is folded in)"
        } else {
            how = "converted from the working space to \(spaceName)"
        }
        let alpha = premultipliedOut ? "premultiplied" : "straight"
        return RenderPlan(recipe: recipe, rect: r, tileSize: tileSizeOverride).describe()
            + "\nwrite: \(format), \(how), \(alpha) alpha"
    }
}
