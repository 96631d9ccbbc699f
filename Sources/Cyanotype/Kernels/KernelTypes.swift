/// One row handed to a Swift colour or blend kernel. `output` holds the first image
/// argument's pixels on entry and the kernel's result on exit; `input(i)` is image argument
/// `i + 1` over the same pixels. Pixel `k` has its centre at `(x + k + 0.5, y + 0.5)`.
public struct KernelRow {
    /// The row's pixels (RGBA, working space): the first image's on entry, the result on exit.
    public let output: UnsafeMutableBufferPointer<SIMD4<Float>>
    let extras: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>
    /// How many other image arguments `input(_:)` reads (the image arguments after the first).
    public let extraCount: Int
    /// The x of the row's first pixel (its left edge), in image coordinates.
    public let x: Int
    /// The y of the row (its bottom edge), in image coordinates.
    public let y: Int

    /// Image argument `index + 1` (the first image is in `output`).
    public func input(_ index: Int) -> UnsafeBufferPointer<SIMD4<Float>> {
        precondition(index >= 0 && index < extraCount, "kernel input \(index) out of range 0..<\(extraCount)")
        return UnsafeBufferPointer(start: extras[index], count: output.count)
    }
}

/// A user's Swift colour kernel as a fusable stage.
struct ClosureColorStage: ColorStage {
    let name: String
    let extraInputCount: Int
    let wantsUnpremultiplied: Bool
    let function: @Sendable (KernelRow) -> Void
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        function(KernelRow(output: UnsafeMutableBufferPointer(start: row, count: count), extras: extra, extraCount: extraInputCount, x: x, y: y))
    }
    var label: String { name }
}

/// Core Image's kernel ROI callback: for input `index`, the rectangle needed for `rect`.
public typealias CIKernelROICallback = @Sendable (Int32, CGRect) -> CGRect

/// A per-pixel kernel written in Swift, applied one row at a time (never one call per
/// pixel). Runs of colour kernels fuse with the built-in colour filters around them.
///
///     let invert = CIColorKernel(name: "invert") { row in
///         for i in row.output.indices { let p = row.output[i]; row.output[i] = SIMD4(p.w - p.x, p.w - p.y, p.w - p.z, p.w) }
///     }
///     let out = invert.apply(extent: image.extent, arguments: [image])
public class CIColorKernel: @unchecked Sendable {
    /// The kernel's name, shown by `CIContext.explain(_:)`.
    public let name: String
    let premultiplied: Bool
    let function: @Sendable (KernelRow) -> Void

    /// `premultiplied`: whether rows hold premultiplied colour (Core Image's default for
    /// kernels) or straight colour, converted for you before and after.
    public init(name: String, premultiplied: Bool = true, row: @escaping @Sendable (KernelRow) -> Void) {
        self.name = name
        self.premultiplied = premultiplied
        self.function = row
    }

    /// Applies the kernel over `extent`. Image arguments are the kernel's inputs, in order;
    /// other values are ignored (capture parameters in the closure). With no image, the
    /// kernel generates: rows start clear.
    public func apply(extent: CGRect, arguments: [Any]) -> CIImage? {
        let images = arguments.compactMap { $0 as? CIImage }
        let stage = ClosureColorStage(name: name, extraInputCount: max(0, images.count - 1), wantsUnpremultiplied: !premultiplied, function: function)
        guard let first = images.first else {
            let clear = CIImage(color: .clear).cropped(to: extent)
            return clear.applying(stage, extent: extent)
        }
        return first.applying(stage, extras: Array(images.dropFirst()), extent: extent)
    }
}

/// A kernel of two images, foreground and background, whose result covers both extents.
/// The built-in blend modes are available as `CIBlendKernel.multiply`, `.sourceOver`, ...
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

    /// Blends `foreground` over `background` in the working space; the result covers both extents.
    public func apply(foreground: CIImage, background: CIImage) -> CIImage? {
        let s: any ColorStage = stage ?? ClosureColorStage(name: name, extraInputCount: 1, wantsUnpremultiplied: false, function: function)
        return foreground.applying(s, extras: [background], extent: foreground.extent.union(background.extent))
    }
    /// Blends in `colorSpace` instead of the working space (e.g. sRGB-encoded values, as CSS
    /// and most design tools blend): both images are converted into it, blended, and back,
    /// by conversion stages that cancel against their neighbours and fold into 8-bit reads
    /// and writes like any other.
    public func apply(foreground: CIImage, background: CIImage, colorSpace: CGColorSpace) -> CIImage? {
        let s: any ColorStage = stage ?? ClosureColorStage(name: name, extraInputCount: 1, wantsUnpremultiplied: false, function: function)
        let into = SpaceConversionStage(space: colorSpace, direction: .fromWorking)
        return foreground.applying(into)
            .applying(s, extras: [background.applying(into)], extent: foreground.extent.union(background.extent))
            .applying(SpaceConversionStage(space: colorSpace, direction: .toWorking))
    }

    /// Porter-Duff source over: the foreground over the background (`composited(over:)`).
    public static let sourceOver = CIBlendKernel(stage: BlendStage.sourceOver)
    /// The multiply blend mode: the colours' product, darkening (`CIMultiplyBlendMode`).
    public static let multiply = CIBlendKernel(stage: BlendStage.multiply)
}

/// A row of destination pixels for a warp kernel: fill `sourcePoints[k]` with the point of
/// the input to sample for the pixel whose centre is `(x + k + 0.5, y + 0.5)`.
public struct WarpRow {
    /// Where to sample the input for each destination pixel of the row; a non-finite point gives clear.
    public let sourcePoints: UnsafeMutableBufferPointer<SIMD2<Float>>
    /// The x of the row's first pixel (its left edge), in destination coordinates.
    public let x: Int
    /// The y of the row (its bottom edge), in destination coordinates.
    public let y: Int
}

/// A geometric kernel: destination point -> source point, sampled bilinearly.
public final class CIWarpKernel: @unchecked Sendable {
    /// The kernel's name, shown by `CIContext.explain(_:)`.
    public let name: String
    let function: @Sendable (WarpRow) -> Void
    /// A warp kernel whose `row` function fills one row of source points at a time.
    public init(name: String, row: @escaping @Sendable (WarpRow) -> Void) {
        self.name = name
        self.function = row
    }
    /// The warped `image` over `extent`. `roiCallback` returns, for a destination rectangle, the
    /// rectangle of `image` its source points fall in (one pixel of margin is added for the
    /// bilinear sampling); only that part of the input is computed. `arguments` are ignored:
    /// capture parameters in the row function.
    public func apply(extent: CGRect, roiCallback: @escaping CIKernelROICallback, image: CIImage, arguments: [Any]) -> CIImage? {
        CIImage(node: WarpKernelNode(input: image.node, extent: extent, roi: roiCallback, function: function, name: name))
    }
}

/// A general kernel: for each output tile, read any pixels of the inputs within the regions
/// the ROI callback declares.
public final class CIKernel: @unchecked Sendable {
    /// The kernel's name, shown by `CIContext.explain(_:)`.
    public let name: String
    let function: @Sendable (KernelTile) -> Void
    /// A kernel whose `tile` function fills one output tile at a time.
    public init(name: String, tile: @escaping @Sendable (KernelTile) -> Void) {
        self.name = name
        self.function = tile
    }
    /// The kernel's output over `extent`. The image arguments are its inputs, in order; for
    /// each output tile, `roiCallback(i, tile)` says which rectangle of input `i` the tile
    /// reads, and only that is computed. Other arguments are ignored (capture them instead).
    public func apply(extent: CGRect, roiCallback: @escaping CIKernelROICallback, arguments: [Any]) -> CIImage? {
        let images = arguments.compactMap { $0 as? CIImage }
        return CIImage(node: GeneralKernelNode(inputs: images.map(\.node), extent: extent, roi: roiCallback, function: function, name: name))
    }
}

/// The pixels of one input that a general kernel may read.
public struct KernelSampler {
    /// The region available (what the ROI callback asked for, in image coordinates).
    public let rect: CGRect
    let block: PixelBlock

    /// Pixel whose lower-left corner is `(x, y)`; clear outside the available region.
    public func pixel(x: Int, y: Int) -> SIMD4<Float> {
        let r = block.rect
        guard x >= r.minX, y >= r.minY, x < r.maxX, y < r.maxY else { return .zero }
        return block.pixels[(y - r.minY) * r.width + (x - r.minX)]
    }
    /// Bilinear sample at a point (pixel centres sit at +0.5).
    public func sample(_ p: CGPoint) -> SIMD4<Float> {
        let u = Double(p.x) - 0.5, v = Double(p.y) - 0.5
        let fx = u.rounded(.down), fy = v.rounded(.down)
        let x0 = Int(fx), y0 = Int(fy)
        let tx = Float(u - fx), ty = Float(v - fy)
        let top = pixel(x: x0, y: y0) * (1 - tx) + pixel(x: x0 + 1, y: y0) * tx
        let bottom = pixel(x: x0, y: y0 + 1) * (1 - tx) + pixel(x: x0 + 1, y: y0 + 1) * tx
        return top * (1 - ty) + bottom * ty
    }
}

/// The output tile of a general kernel and its inputs.
public struct KernelTile {
    /// The output rectangle (image coordinates, whole pixels).
    public let rect: CGRect
    /// One sampler per image argument, in order, each over the region its ROI asked for.
    public let inputs: [KernelSampler]
    let out: TileBuffer

    /// Output row `r` (0 is the lowest y of `rect`), `rect.width` pixels.
    public func outputRow(_ r: Int) -> UnsafeMutableBufferPointer<SIMD4<Float>> {
        UnsafeMutableBufferPointer(start: out.row(r), count: out.width)
    }
}

final class WarpKernelNode: RecipeNode, @unchecked Sendable {
    let roi: CIKernelROICallback
    let function: @Sendable (WarpRow) -> Void
    let name: String
    init(input: RecipeNode, extent: CGRect, roi: @escaping CIKernelROICallback, function: @escaping @Sendable (WarpRow) -> Void, name: String) {
        self.roi = roi; self.function = function; self.name = name
        super.init(extent: extent, inputs: [input])
    }
    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        PixelRect(covering: roi(Int32(index), rect.cgRect).insetBy(dx: -1, dy: -1))
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = inputRect(0, for: rect).intersection(inputs[0].pixelExtent)
        let block = PixelBlock(rect: src.isEmpty ? PixelRect(x: 0, y: 0, width: 1, height: 1) : src, zeroed: src.isEmpty)
        if !src.isEmpty { ev.fill(inputs[0], src, block.buffer) }
        let sampler = KernelSampler(rect: block.rect.cgRect, block: block)
        let pts = UnsafeMutableBufferPointer<SIMD2<Float>>.allocate(capacity: rect.width)
        defer { pts.deallocate() }
        for r in 0..<out.height {
            function(WarpRow(sourcePoints: pts, x: rect.minX, y: rect.minY + r))
            let d = out.row(r)
            for i in 0..<rect.width {
                let p = pts[i]
                d[i] = p.x.isFinite && p.y.isFinite ? sampler.sample(CGPoint(x: CGFloat(p.x), y: CGFloat(p.y))) : .zero
            }
        }
    }
    override var label: String { "warp \(name)" }
}

final class GeneralKernelNode: RecipeNode, @unchecked Sendable {
    let roi: CIKernelROICallback
    let function: @Sendable (KernelTile) -> Void
    let name: String
    init(inputs: [RecipeNode], extent: CGRect, roi: @escaping CIKernelROICallback, function: @escaping @Sendable (KernelTile) -> Void, name: String) {
        self.roi = roi; self.function = function; self.name = name
        super.init(extent: extent, inputs: inputs)
    }
    override var isExpensive: Bool { true }
    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        PixelRect(covering: roi(Int32(index), rect.cgRect))
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let samplers = inputs.enumerated().map { (i, input) -> KernelSampler in
            let r = inputRect(i, for: rect)
            let block = PixelBlock(rect: r.isEmpty ? PixelRect(x: 0, y: 0, width: 1, height: 1) : r, zeroed: r.isEmpty)
            if !r.isEmpty { ev.fill(input, r, block.buffer) }
            return KernelSampler(rect: r.cgRect, block: block)
        }
        out.zero()
        function(KernelTile(rect: rect.cgRect, inputs: samplers, out: out))
    }
    override var label: String { "kernel \(name)" }
}
