import Foundation

// Core Image's kernel classes, in Apple's hierarchy: `CIKernel` is the base class,
// `CIColorKernel` and `CIWarpKernel` derive from it, and `CIBlendKernel` from `CIColorKernel`.
// A kernel is either a Swift closure (row or tile functions, this package's own API) or source
// text in the Core Image Kernel Language or Core Image's Metal subset, compiled at run time to
// the span IR (Kernels/Language) and run on the same engine kinds.

/// Why a kernel could not be made: what Apple reports as an `NSError`.
public enum CIKernelError: Error, CustomStringConvertible, Equatable {
    /// The source text has an error at `line`, `column` (1-based).
    case compileFailed(message: String, line: Int, column: Int)
    /// Apple's compiled Metal libraries (`.metallib`) cannot be read on this platform.
    case metalLibraryUnsupported(functionName: String)
    /// The named function is not a kernel of the source.
    case functionNotFound(String)

    /// A message in the user's terms.
    public var description: String {
        switch self {
        case .compileFailed(let m, let l, let c): return "kernel source error at line \(l), column \(c): \(m)"
        case .metalLibraryUnsupported(let f):
            return
                "cannot load '\(f)' from compiled Metal library data: Apple's .metallib format cannot be read here; pass the Metal source to CIKernel.kernels(withMetalString:) instead"
        case .functionNotFound(let f): return "no kernel named '\(f)' in the source"
        }
    }
}

/// Writes a kernel diagnostic where Core Image logs one (standard error).
func logKernelMessage(_ message: String) {
    FileHandle.standardError.write(Data("CIKernel: \(message)\n".utf8))
}

/// Compiles `source`, logging the error (with line and column) and giving nil as Apple does.
func compileKernels(_ source: String, dialect: KernelDialect) -> Result<[CompiledKernel], CIKernelError> {
    do {
        return .success(try KernelCompiler.compile(source, dialect: dialect))
    } catch let e as KernelSourceError {
        return .failure(.compileFailed(message: e.message, line: e.location.line, column: e.location.column))
    } catch {
        return .failure(.compileFailed(message: "\(error)", line: 1, column: 1))
    }
}

/// A kernel of any kind; source kernels (`init?(source:)`, `kernels(withString:)`) run through
/// `apply(extent:roiCallback:arguments:)`. The base of Core Image's kernel classes.
public class CIKernel: @unchecked Sendable {
    /// The kernel's name (its function name for source kernels), shown by `CIContext.explain(_:)`.
    public let name: String
    let tileFunction: (@Sendable (KernelTile) -> Void)?
    let compiled: CompiledKernel?

    init(name: String, tileFunction: (@Sendable (KernelTile) -> Void)?, compiled: CompiledKernel?) {
        self.name = name
        self.tileFunction = tileFunction
        self.compiled = compiled
    }

    /// A kernel whose `tile` function fills one output tile at a time.
    public convenience init(name: String, tile: @escaping @Sendable (KernelTile) -> Void) {
        self.init(name: name, tileFunction: tile, compiled: nil)
    }

    /// The first kernel of Core Image Kernel Language `source`; nil (and a logged message
    /// with line and column) when it does not compile.
    public init?(source: String) {
        guard let k = CIKernel.firstKernel(source, accept: { _ in true }, what: "kernel") else { return nil }
        self.name = k.name
        self.tileFunction = nil
        self.compiled = k
    }

    static func firstKernel(_ source: String, accept: (CompiledKernel) -> Bool, what: String) -> CompiledKernel? {
        switch compileKernels(source, dialect: .ciKernelLanguage) {
        case .failure(let e):
            logKernelMessage("\(e)")
            return nil
        case .success(let kernels):
            guard let k = kernels.first else { return nil }
            guard accept(k) else {
                logKernelMessage("'\(k.name)' is not a \(what)")
                return nil
            }
            return k
        }
    }

    static func make(_ k: CompiledKernel) -> CIKernel {
        switch k.kind {
        case .color: return CIColorKernel(compiled: k)
        case .warp: return CIWarpKernel(compiled: k)
        case .general: return CIKernel(name: k.name, tileFunction: nil, compiled: k)
        }
    }

    /// Every kernel of Core Image Kernel Language `string`, each as its class (`CIColorKernel`
    /// for `__sample` kernels, `CIWarpKernel` for `vec2` kernels, `CIKernel` for sampler
    /// kernels); nil (and a logged message with line and column) when the source has an error.
    public class func kernels(withString string: String) -> [CIKernel]? {
        switch compileKernels(string, dialect: .ciKernelLanguage) {
        case .failure(let e):
            logKernelMessage("\(e)")
            return nil
        case .success(let kernels): return kernels.map(make)
        }
    }

    /// Every `[[stitchable]]` kernel of Core Image Metal `source` (Apple's run-time Metal
    /// compile), each as its class; throws `CIKernelError.compileFailed` with line and column.
    public class func kernels(withMetalString source: String) throws -> [CIKernel] {
        switch compileKernels(source, dialect: .metal) {
        case .failure(let e): throw e
        case .success(let kernels): return kernels.map(make)
        }
    }

    /// Apple's compiled Metal library cannot be read here: always throws
    /// `CIKernelError.metalLibraryUnsupported` (use `kernels(withMetalString:)` with the source).
    public convenience init(functionName name: String, fromMetalLibraryData data: Data) throws {
        throw CIKernelError.metalLibraryUnsupported(functionName: name)
    }
    /// Apple's compiled Metal library cannot be read here: always throws
    /// `CIKernelError.metalLibraryUnsupported`.
    public convenience init(functionName name: String, fromMetalLibraryData data: Data, outputPixelFormat format: CIFormat) throws {
        throw CIKernelError.metalLibraryUnsupported(functionName: name)
    }

    /// The kernel's output over `extent`. The image arguments are its inputs, in order; for
    /// each output tile, `roiCallback(i, tile)` says which rectangle of input `i` the tile
    /// reads, and only that is computed. A source kernel takes `arguments` matching its
    /// parameters in order (images for samplers, numbers, `CIVector`s, `CIColor`s); a closure
    /// kernel ignores the non-image ones (capture them instead). Nil, with a logged message,
    /// when the arguments do not match.
    public func apply(extent: CGRect, roiCallback: @escaping CIKernelROICallback, arguments: [Any]) -> CIImage? {
        if let tileFunction {
            let images = arguments.compactMap { $0 as? CIImage }
            return CIImage(node: generalKernelNode(images: images.map(\.node), extent: extent, roi: roiCallback, function: tileFunction, name: name))
        }
        guard let k = compiled else { return nil }
        switch k.kind {
        case .color:
            return SourceKernelApply.color(k, extent: extent, arguments: arguments, extentUnion: false)
        case .warp:
            guard let image = arguments.first(where: { $0 is CIImage }) as? CIImage else {
                logKernelMessage("warp kernel '\(k.name)' needs an image argument")
                return nil
            }
            return SourceKernelApply.warp(k, extent: extent, roi: roiCallback, image: image, arguments: arguments.filter { !($0 is CIImage) })
        case .general:
            return SourceKernelApply.general(k, extent: extent, roi: roiCallback, arguments: arguments)
        }
    }
}

/// A per-pixel kernel: from Core Image Kernel Language source (`__sample` inputs), from
/// Metal source, or written in Swift, applied one row at a time (never one call per pixel).
/// Runs of colour kernels fuse with the built-in colour filters around them.
///
///     let invert = CIColorKernel(name: "invert") { row in
///         for i in row.output.indices { let p = row.output[i]; row.output[i] = SIMD4(p.w - p.x, p.w - p.y, p.w - p.z, p.w) }
///     }
///     let out = invert.apply(extent: image.extent, arguments: [image])
public class CIColorKernel: CIKernel, @unchecked Sendable {
    let premultiplied: Bool
    let function: @Sendable (KernelRow) -> Void

    /// `premultiplied`: whether rows hold premultiplied colour (Core Image's default for
    /// kernels) or straight colour, converted for you before and after.
    public init(name: String, premultiplied: Bool = true, row: @escaping @Sendable (KernelRow) -> Void) {
        self.premultiplied = premultiplied
        self.function = row
        super.init(name: name, tileFunction: nil, compiled: nil)
    }

    init(compiled k: CompiledKernel) {
        premultiplied = true
        function = { _ in }
        super.init(name: k.name, tileFunction: nil, compiled: k)
    }

    /// The first kernel of Core Image Kernel Language `source`, which must be a colour kernel
    /// (`__sample`/`__color` inputs, returning `vec4`); nil and a logged message otherwise.
    public override init?(source: String) {
        guard let k = CIKernel.firstKernel(source, accept: { $0.kind == .color }, what: "colour kernel (__sample inputs, vec4 result)") else {
            return nil
        }
        premultiplied = true
        function = { _ in }
        super.init(name: k.name, tileFunction: nil, compiled: k)
    }

    /// Apple's compiled Metal library cannot be read here: always throws
    /// `CIKernelError.metalLibraryUnsupported` (use `CIKernel.kernels(withMetalString:)`).
    public convenience init(functionName name: String, fromMetalLibraryData data: Data) throws {
        throw CIKernelError.metalLibraryUnsupported(functionName: name)
    }
    /// Apple's compiled Metal library cannot be read here: always throws
    /// `CIKernelError.metalLibraryUnsupported`.
    public convenience init(functionName name: String, fromMetalLibraryData data: Data, outputPixelFormat format: CIFormat) throws {
        throw CIKernelError.metalLibraryUnsupported(functionName: name)
    }

    /// Applies the kernel over `extent`. For a source kernel, `arguments` match its
    /// parameters in order (`CIImage` for `__sample`, numbers, `CIVector`, `CIColor`); nil
    /// with a logged message when they do not. For a Swift kernel, image arguments are the
    /// inputs in order and other values are ignored (capture parameters in the closure). With
    /// no image, the kernel generates: rows start clear.
    public func apply(extent: CGRect, arguments: [Any]) -> CIImage? {
        if let k = compiled { return SourceKernelApply.color(k, extent: extent, arguments: arguments, extentUnion: false) }
        let images = arguments.compactMap { $0 as? CIImage }
        let stage = ClosureColorStage(name: name, extraInputCount: max(0, images.count - 1), wantsUnpremultiplied: !premultiplied, function: function)
        guard let first = images.first else {
            let clear = CIImage(color: .clear).cropped(to: extent)
            return clear.applying(stage, extent: extent)
        }
        return first.applying(stage, extras: Array(images.dropFirst()), extent: extent)
    }

    /// A colour kernel reads each input at the output pixel only: the ROI is ignored.
    public override func apply(extent: CGRect, roiCallback: @escaping CIKernelROICallback, arguments: [Any]) -> CIImage? {
        apply(extent: extent, arguments: arguments)
    }
}

/// A kernel of two images, foreground and background, whose result covers both extents.
/// The built-in blend modes are available as `CIBlendKernel.multiply`, `.sourceOver`, ...;
/// `CIBlendKernel(source:)` compiles one from a kernel of two `__sample`s (foreground first).
public final class CIBlendKernel: CIColorKernel, @unchecked Sendable {
    let stage: (any ColorStage)?

    /// `row.output` holds the foreground, `row.input(0)` the background (premultiplied).
    public init(name: String, row: @escaping @Sendable (KernelRow) -> Void) {
        stage = nil
        super.init(name: name, premultiplied: true, row: row)
    }
    init(stage: any ColorStage) {
        self.stage = stage
        super.init(name: stage.label, premultiplied: !stage.wantsUnpremultiplied) { _ in }
    }

    /// A blend kernel from Core Image Kernel Language source: a colour kernel of exactly two
    /// `__sample` inputs (foreground, background); nil and a logged message otherwise.
    public override init?(source: String) {
        guard
            let k = CIKernel.firstKernel(
                source, accept: { $0.kind == .color && $0.imageCount == 2 && $0.arguments.count == 2 },
                what: "blend kernel (two __sample inputs, vec4 result)")
        else { return nil }
        stage = nil
        super.init(compiled: k)
    }

    /// Blends `foreground` over `background` in the working space; the result covers both extents.
    public func apply(foreground: CIImage, background: CIImage) -> CIImage? {
        if let k = compiled {
            return SourceKernelApply.color(k, extent: foreground.extent.union(background.extent), arguments: [foreground, background], extentUnion: true)
        }
        let s: any ColorStage = stage ?? ClosureColorStage(name: name, extraInputCount: 1, wantsUnpremultiplied: false, function: function)
        return foreground.applying(s, extras: [background], extent: foreground.extent.union(background.extent))
    }
    /// Blends in `colorSpace` instead of the working space (e.g. sRGB-encoded values, as CSS
    /// and most design tools blend): both images are converted into it, blended, and back,
    /// by conversion stages that cancel against their neighbours and fold into 8-bit reads
    /// and writes like any other.
    public func apply(foreground: CIImage, background: CIImage, colorSpace: CGColorSpace) -> CIImage? {
        let into = SpaceConversionStage(space: colorSpace, direction: .fromWorking)
        if let k = compiled {
            return SourceKernelApply.color(
                k, extent: foreground.extent.union(background.extent), arguments: [foreground.applying(into), background.applying(into)], extentUnion: true
            )?.applying(SpaceConversionStage(space: colorSpace, direction: .toWorking))
        }
        let s: any ColorStage = stage ?? ClosureColorStage(name: name, extraInputCount: 1, wantsUnpremultiplied: false, function: function)
        return foreground.applying(into)
            .applying(s, extras: [background.applying(into)], extent: foreground.extent.union(background.extent))
            .applying(SpaceConversionStage(space: colorSpace, direction: .toWorking))
    }

    /// Porter-Duff source over: the foreground over the background (`composited(over:)`).
    public static let sourceOver = CIBlendKernel(stage: BlendStage.sourceOver)
    /// The multiply blend mode: the colours' product, darkening (`CIMultiplyBlendMode`).
    public static let multiply = CIBlendKernel(stage: BlendStage.multiply)
}

/// A geometric kernel: destination point -> source point, sampled bilinearly. From Core
/// Image Kernel Language source (a `vec2` kernel using `destCoord()`), Metal source, or a
/// Swift row function.
public final class CIWarpKernel: CIKernel, @unchecked Sendable {
    let function: (@Sendable (WarpRow) -> Void)?

    /// A warp kernel whose `row` function fills one row of source points at a time.
    public init(name: String, row: @escaping @Sendable (WarpRow) -> Void) {
        self.function = row
        super.init(name: name, tileFunction: nil, compiled: nil)
    }

    init(compiled k: CompiledKernel) {
        function = nil
        super.init(name: k.name, tileFunction: nil, compiled: k)
    }

    /// The first kernel of Core Image Kernel Language `source`, which must be a warp kernel
    /// (returning `vec2`); nil and a logged message otherwise.
    public override init?(source: String) {
        guard let k = CIKernel.firstKernel(source, accept: { $0.kind == .warp }, what: "warp kernel (vec2 result)") else { return nil }
        function = nil
        super.init(name: k.name, tileFunction: nil, compiled: k)
    }

    /// Apple's compiled Metal library cannot be read here: always throws
    /// `CIKernelError.metalLibraryUnsupported` (use `CIKernel.kernels(withMetalString:)`).
    public convenience init(functionName name: String, fromMetalLibraryData data: Data) throws {
        throw CIKernelError.metalLibraryUnsupported(functionName: name)
    }

    /// The warped `image` over `extent`. `roiCallback` returns, for a destination rectangle, the
    /// rectangle of `image` its source points fall in (one pixel of margin is added for the
    /// bilinear sampling); only that part of the input is computed. A source kernel takes
    /// `arguments` matching its parameters in order; a Swift kernel ignores them (capture
    /// parameters in the row function).
    public func apply(extent: CGRect, roiCallback: @escaping CIKernelROICallback, image: CIImage, arguments: [Any]) -> CIImage? {
        if let k = compiled { return SourceKernelApply.warp(k, extent: extent, roi: roiCallback, image: image, arguments: arguments) }
        guard let function else { return nil }
        return CIImage(node: WarpKernelNode(input: image.node, extent: extent, roi: roiCallback, function: function, name: name))
    }

    /// A warp kernel needs its image: the first image argument is it, the rest are parameters.
    public override func apply(extent: CGRect, roiCallback: @escaping CIKernelROICallback, arguments: [Any]) -> CIImage? {
        guard let image = arguments.first(where: { $0 is CIImage }) as? CIImage else {
            logKernelMessage("warp kernel '\(name)' needs an image argument")
            return nil
        }
        return apply(extent: extent, roiCallback: roiCallback, image: image, arguments: arguments.filter { !($0 is CIImage) })
    }
}
