// CIMotionBlur: the mean along a segment through each pixel, as a running sum along the line.
// The image is sheared so the line becomes a row (each column moved by a fraction of a row,
// interpolated), the rows are summed over windows (`AnchoredSums`, constant time per pixel
// whatever the radius), and the sums are sheared back. Lines nearer vertical than horizontal
// run the same way on the transposed tile.

extension FilterInputLimit {
    /// CIMotionBlur's radius: a tile reads its input with a halo of the radius along the line.
    static let motionRadius = FilterInputLimit(
        maximum: 500, reason: "a tile reads its input with a halo of the radius along the line, and past 500 pixels that halo outgrows memory")
}

extension BuiltinFilters {
    /// CIMotionBlur: Directional blur simulating camera motion at an angle.
    static let motionBlur = BuiltinFilter(
        FilterDescriptor(
            "CIMotionBlur", "Motion Blur", "Directional blur simulating camera motion at an angle.",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "8.3", factory: "motionBlur",
            doc: """
                The mean of the input along a segment of length 2 * radius through each
                pixel, at `angle` (radians, counter-clockwise from the x axis, y up), as a camera
                moving during the exposure smears it. Apple publishes no formula; ours steps along
                the axis nearer the line: for a line nearer horizontal (|cos| >= |sin|) it averages
                the 2L + 1 points (x + t, y + t * tan(angle)), t = -L ... L, L = round(radius *
                |cos(angle)|), each point read between the two rows around it (linear
                interpolation); nearer vertical, the same with x and y exchanged. To run in constant
                time per pixel (a running sum along the line) the sums are taken on whole rows of
                the sheared image and interpolated between the two neighbouring lines, which adds
                at most a pixel of softness across the line; along the line the weights are even.
                Premultiplied pixels, clear outside the input; the extent grows by the segment's
                reach. A radius whose L rounds to 0 is the image itself.
                """,
            inputs: [
                .image(),
                .number("inputRadius", "Radius", .distance, default: 20, identity: 0, min: 0, slider: 0...100, limit: .motionRadius, "Half the segment's length, in pixels."),
                .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793, "The direction of the motion, in radians."),
            ]),
        reach: .halo(kCIInputRadiusKey, plus: 2)
    ) {
        args throws(CIFilterError) in
        let image = try args.image()
        let blur = MotionBlur(radius: try args.number(kCIInputRadiusKey), angle: try args.number(kCIInputAngleKey))
        if blur.half == 0 || image.extent.isEmpty { return image }
        return CIImage(node: NeighbourhoodNode(input: image.node, operation: blur))
    }
}

/// CIMotionBlur's operation (see the declaration): in its own frame (the tile transposed
/// when the line is nearer vertical), output (x, y) is the mean of the points
/// (x + t, y + t * slope), t = -half ... half.
///
/// Computed as: the sheared rows `Sh(u, k) = lerp(in(u, k + floor(u m)), in(u, k + floor(u m) + 1), frac(u m))`
/// (every lerp written `a + (b - a) t`, and sums divided by their counts, so an opaque image
/// stays exactly opaque)
/// (m the slope), their window sums `B(x, k) = sum over |t| <= half of Sh(x + t, k)`
/// (anchored prefix sums), and `out(x, y) = lerp(B(x, k0), B(x, k0 + 1), frac(y - x m)) / taps`,
/// `k0 = floor(y - x m)`. Every value comes from absolute coordinates, so tiles agree to the
/// bit, and every stage passes each input pixel's weight on whole, so the blur keeps the
/// image's total.
struct MotionBlur: NeighbourhoodOperation {
    let radius: Double, angle: Double
    /// Whether the line is nearer vertical: the tile is transposed, and x and y exchange.
    let vertical: Bool
    /// The line's slope in its frame (|slope| <= 1).
    let slope: Double
    /// Points either side of the pixel along the stepping axis.
    let half: Int
    var taps: Int { 2 * half + 1 }
    /// How far the line (and its interpolation) reaches across the stepping axis, from the
    /// first column of a window's prefix run (up to `AnchoredSums.slack` before the window).
    var across: Int { Int((Double(half + AnchoredSums.slack) * abs(slope)).rounded(.up)) + 4 }

    init(radius: Double, angle: Double) {
        self.radius = radius
        self.angle = angle
        let c = cos(angle), s = sin(angle)
        vertical = abs(s) > abs(c)
        slope = vertical ? c / s : s / c
        half = Int((radius * (vertical ? abs(s) : abs(c))).rounded())
    }

    /// The reach in the line's own frame (x along the stepping axis).
    private var frameReach: NeighbourhoodReach {
        NeighbourhoodReach(left: half + AnchoredSums.slack, right: half, below: across, above: across)
    }
    var reach: NeighbourhoodReach {
        let r = frameReach
        return vertical ? NeighbourhoodReach(left: r.below, right: r.above, below: r.left, above: r.right) : r
    }

    func extent(of input: CGRect) -> CGRect {
        if input.isInfinite { return .infinite }
        let along = CGFloat(half), side = CGFloat(Int((Double(half) * abs(slope)).rounded(.up)) + 2)
        return vertical ? input.insetBy(dx: -side, dy: -along) : input.insetBy(dx: -along, dy: -side)
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        if !vertical { run(input, into: out); return }
        // The transposed tile: row i holds column i.
        let src = input.pixels
        let t = PixelBlock(rect: PixelRect(x: 0, y: 0, width: src.height, height: src.width))
        for r in 0..<src.height {
            let s = src.row(r)
            for c in 0..<src.width { t.pixels[c * src.height + r] = s[c] }
        }
        let rect = input.rect
        let framed = NeighbourhoodInput(
            rect: PixelRect(x: rect.minY, y: rect.minX, width: rect.height, height: rect.width),
            pixels: t.buffer, reach: frameReach)
        let o = PixelBlock(rect: PixelRect(x: 0, y: 0, width: out.height, height: out.width))
        run(framed, into: o.buffer)
        for r in 0..<out.height {
            let d = out.row(r)
            for c in 0..<out.width { d[c] = o.pixels[c * out.height + r] }
        }
    }

    /// The blur in the line's frame.
    private func run(_ input: NeighbourhoodInput, into out: TileBuffer) {
        if slope == 0 { runRows(input, into: out) } else { runSheared(input, into: out) }
    }

    /// Slope 0: window sums of each row.
    private func runRows(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let L = half, w = out.width, X = input.rect.minX
        let base = AnchoredSums.blockStart(X - L), count = X + w + L - base
        let scratch = PixelBlock(rect: PixelRect(x: 0, y: 0, width: AnchoredSums.prefixCapacity(count) + AnchoredSums.totalsCapacity(count), height: 1))
        let e = scratch.pixels, t = scratch.pixels + AnchoredSums.prefixCapacity(count)
        let n = Float(taps)
        for y in 0..<out.height {
            let s = input.pixels.row(y + input.reach.below) + (base - input.originX)
            AnchoredSums.prefix(s, count: count, e: e, t: t)
            let d = out.row(y)
            d.update(repeating: .zero, count: w)
            AnchoredSums.addWindows(e, t, from: X - L - base, length: taps, count: w, into: d)
            for i in 0..<w { d[i] /= n }
        }
    }

    /// Any other slope: shear, window sums, shear back (see the type's comment).
    private func runSheared(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let L = half, m = slope, h = out.height
        let X = input.rect.minX, Y = input.rect.minY
        let src = input.pixels, ox = input.originX, oy = input.originY
        let chunk = min(out.width, 128)
        let n = Float(taps)
        // Sheared rows of one chunk: widest when a row spans the chunk and the window.
        let span = chunk + 2 * L + AnchoredSums.block
        let scratch = PixelBlock(rect: PixelRect(x: 0, y: 0, width: 2 * span + AnchoredSums.totalsCapacity(span) + 2, height: 1))
        let sh = scratch.pixels, e = sh + span, t = e + span + 1
        let fracs = UnsafeMutablePointer<Float>.allocate(capacity: span)
        let floors = UnsafeMutablePointer<Int>.allocate(capacity: span)
        defer { fracs.deallocate(); floors.deallocate() }
        let lim = Double(PixelRect.limit)
        var cx0 = 0
        while cx0 < out.width {
            let cw = min(chunk, out.width - cx0)
            let xa = X + cx0, xb = X + cx0 + cw - 1
            // The sheared rows k the chunk's pixels interpolate between.
            let lowQ = Double(Y) - max(Double(xa) * m, Double(xb) * m), highQ = Double(Y + h - 1) - min(Double(xa) * m, Double(xb) * m)
            let kLo = Int(lowQ.rounded(.down)), kHi = Int(highQ.rounded(.down)) + 1
            let sums = PixelBlock(rect: PixelRect(x: 0, y: 0, width: cw, height: kHi - kLo + 1))
            // Row shift and interpolation weight of every column the chunk's windows reach.
            let ubase = AnchoredSums.blockStart(xa - L), uend = xb + L + 1
            for u in ubase..<uend {
                let v = Double(u) * m, f = v.rounded(.down)
                floors[u - ubase] = Int(f)
                fracs[u - ubase] = Float(v - f)
            }
            for k in kLo...kHi {
                // Columns whose pixels read row k: k0 = floor(y - x m) is k or k - 1 for some y.
                var lo = (Double(Y - 1 - k)) / m, hi = (Double(Y + h - k)) / m
                if m < 0 { swap(&lo, &hi) }
                let x0 = max(xa, Int(max(min(lo, lim), -lim).rounded(.down)) - 1)
                let x1 = min(xb, Int(max(min(hi, lim), -lim).rounded(.up)) + 1)
                if x0 > x1 { continue }
                let u0 = AnchoredSums.blockStart(x0 - L), u1 = x1 + L + 1
                for u in u0..<u1 {
                    let j = k + floors[u - ubase] - oy, f = fracs[u - ubase]
                    let c = u - ox
                    let s0 = src.row(j)[c]
                    sh[u - u0] = s0 + (src.row(j + 1)[c] - s0) * f
                }
                AnchoredSums.prefix(sh, count: u1 - u0, e: e, t: t)
                let row = sums.pixels + (k - kLo) * cw + (x0 - xa)
                row.update(repeating: .zero, count: x1 - x0 + 1)
                AnchoredSums.addWindows(e, t, from: x0 - L - u0, length: taps, count: x1 - x0 + 1, into: row)
            }
            for y in 0..<h {
                let d = out.row(y) + cx0
                let yy = Double(Y + y)
                for i in 0..<cw {
                    let q = yy - Double(xa + i) * m, k0 = q.rounded(.down)
                    let phi = Float(q - k0)
                    let b0 = sums.pixels + (Int(k0) - kLo) * cw + i
                    d[i] = (b0[0] + (b0[cw] - b0[0]) * phi) / n
                }
            }
            cx0 += cw
        }
    }

    var label: String { "motion blur (radius \(radius), angle \(angle), \(taps) taps \(vertical ? "down columns" : "along rows"), slope \(slope))" }
}
