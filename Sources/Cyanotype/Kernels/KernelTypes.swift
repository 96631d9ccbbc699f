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
    /// The pixels of `region`, rows ascending y.
    let pixels: TileBuffer
    /// The whole pixels `pixels` holds (clear outside).
    let region: PixelRect
    /// What owns `pixels`, kept alive with the sampler.
    let owner: AnyObject?

    /// The pixels of `region` (an empty region: one clear pixel at the origin, which
    /// samplers of compiled kernels can read), available as `rect`.
    init(rect: CGRect, pixels: TileBuffer, region: PixelRect, owner: AnyObject?) {
        self.rect = rect
        if region.isEmpty {
            let clear = PixelBlock(rect: PixelRect(x: 0, y: 0, width: 1, height: 1), zeroed: true)
            self.pixels = clear.buffer
            self.region = clear.rect
            self.owner = clear
        } else {
            self.pixels = pixels
            self.region = region
            self.owner = owner
        }
    }

    /// Pixel whose lower-left corner is `(x, y)`; clear outside the available region.
    public func pixel(x: Int, y: Int) -> SIMD4<Float> {
        let r = region
        guard x >= r.minX, y >= r.minY, x < r.maxX, y < r.maxY else { return .zero }
        return pixels.row(y - r.minY)[x - r.minX]
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

/// A user's warp kernel (``CIWarpKernel``) as a warp map: the kernel fills a row of source
/// points at a time, and each is sampled bilinearly (clear outside the region read, and for
/// a non-finite point). The region read is what the ROI callback returns, with one pixel of
/// margin for the sampler, as Core Image asks of it; tiles are never split (the callback
/// may name a region that does not shrink with the tile).
struct KernelWarpMap: WarpMap {
    let roi: CIKernelROICallback
    let function: @Sendable (WarpRow) -> Void
    let name: String

    /// Points one at a time are not how a user's kernel runs (`resample` calls it per row):
    /// this gives no point.
    func source(_ x: Double, _ y: Double) -> (Double, Double)? { nil }
    func sourceBounds(_ box: PointBox) -> PointBox? { .everywhere }
    func sourceRect(for rect: PixelRect) -> PixelRect {
        PixelRect(covering: roi(0, rect.cgRect).insetBy(dx: -1, dy: -1))
    }
    func splitsTile(_ rect: PixelRect, reading source: PixelRect) -> Bool { false }
    var halo: Int { 0 }

    func resample(_ rect: PixelRect, into out: TileBuffer, from source: TileBuffer, sourceRect: PixelRect) {
        let sampler = KernelSampler(rect: sourceRect.cgRect, pixels: source, region: sourceRect, owner: nil)
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

    var label: String { name }
}

/// A user's warp kernel over its image: the warp kind over a `KernelWarpMap`.
typealias WarpKernelNode = WarpNode<KernelWarpMap>

extension WarpNode where Map == KernelWarpMap {
    /// `input` warped by the row function over `extent`, reading what `roi` names.
    convenience init(
        input: RecipeNode, extent: CGRect, roi: @escaping CIKernelROICallback, function: @escaping @Sendable (WarpRow) -> Void, name: String
    ) {
        self.init(input: input, map: KernelWarpMap(roi: roi, function: function, name: name), extent: extent)
    }
}

/// A user's general kernel (``CIKernel``) as a neighbourhood operation: its ROI callback is
/// the rectangle each image is read over (the first image is the kind's input, the others
/// its auxiliary images), and the kernel writes the tile from samplers over them.
struct KernelTileOperation: NeighbourhoodOperation {
    let roi: CIKernelROICallback
    let function: @Sendable (KernelTile) -> Void
    let name: String
    /// The kernel's output extent, as given to `apply`.
    let outputExtent: CGRect
    /// How many images the kernel reads (at least one).
    let imageCount: Int

    /// Reads are no fixed reach (`inputRect` says what they are); tiles are sized as a
    /// pointwise kernel's.
    var reach: NeighbourhoodReach { NeighbourhoodReach(0) }
    func extent(of input: CGRect) -> CGRect { outputExtent }
    var auxiliaryImageCount: Int { imageCount - 1 }

    /// The whole pixels covering what the callback names for image `index`.
    private func region(_ index: Int, _ rect: PixelRect) -> PixelRect {
        let r = roi(Int32(index), rect.cgRect)
        return r.isNull || r.isEmpty ? .empty : PixelRect(covering: r)
    }
    func inputRect(for rect: PixelRect) -> PixelRect { region(0, rect) }
    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect { region(index, rect) }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let first = inputRect(for: input.rect)
        var samplers = [KernelSampler(rect: first.cgRect, pixels: input.pixels, region: first, owner: nil)]
        for b in input.auxiliary { samplers.append(KernelSampler(rect: b.rect.cgRect, pixels: b.buffer, region: b.rect, owner: b)) }
        out.zero()
        function(KernelTile(rect: input.rect.cgRect, inputs: samplers, out: out))
    }

    var label: String { "kernel \(name)" }
}

/// A user's general kernel that reads no image, as a generator: the kernel writes a tile of
/// one row at a time.
struct KernelTileGenerator: GeneratorStage {
    let function: @Sendable (KernelTile) -> Void
    let name: String

    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        out.update(repeating: .zero, count: count)
        let row = TileBuffer(base: out, width: count, height: 1, rowStride: count)
        function(KernelTile(rect: CGRect(x: x, y: y, width: count, height: 1), inputs: [], out: row))
    }

    var label: String { "kernel \(name)" }
}

/// The node of a user's general kernel over `images`: the neighbourhood kind over a
/// `KernelTileOperation`, or a generator when it reads no image.
func generalKernelNode(
    images: [RecipeNode], extent: CGRect, roi: @escaping CIKernelROICallback, function: @escaping @Sendable (KernelTile) -> Void, name: String
) -> RecipeNode {
    guard let first = images.first else {
        return GeneratorNode(stage: KernelTileGenerator(function: function, name: name), extent: extent)
    }
    let op = KernelTileOperation(roi: roi, function: function, name: name, outputExtent: extent, imageCount: images.count)
    return NeighbourhoodNode(input: first, auxiliary: Array(images.dropFirst()), operation: op)
}
