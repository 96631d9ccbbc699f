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
        super.init(extent: extent, inputs: inputs, traits: NodeTraits(isExpensive: true))
    }
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
