// Distortion effects: warps around a centre point. Apple publishes no formulas for these; each
// filter states the classic one it uses. Every warp maps an output point to a source point
// (sampled bilinearly in the premultiplied working space, clear outside the input), computed
// per pixel by `DistortionNode`.

/// `image` warped through `map`, with the output extent `extent` (empty stays empty).
private func warped(_ image: CIImage, _ map: DistortionMap, extent: CGRect) -> CIImage {
    if image.extent.isEmpty || extent.isEmpty { return .empty() }
    return CIImage(node: DistortionNode(input: image.node, map: map, extent: extent))
}

/// The centre and radius every distortion reads (NaN or infinite values throw `nonFinite`;
/// the radius is clamped to the spec's minimum).
private func centreAndRadius(_ args: FilterArguments) throws(CIFilterError) -> (Double, Double, Double) {
    let c = try args.point(kCIInputCenterKey)
    return (Double(c.x), Double(c.y), try args.number(kCIInputRadiusKey))
}

extension BuiltinFilters {
    /// CITwirlDistortion: inside the disc of `inputRadius` about `inputCenter`, the point at
    /// distance r is the input rotated about the centre by `inputAngle * (1 - r/R)^2`
    /// (radians, counter-clockwise for a positive angle, y up): the full angle at the centre,
    /// fading to none at the rim. Outside the disc, unchanged. Output extent: the input's.
    static let twirlDistortion = BuiltinFilter(Catalog.CITwirlDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let angle = try args.number(kCIInputAngleKey)
        if angle == 0 || radius <= 0 { return image }
        return warped(image, .twirl(RadialMap(cx: cx, cy: cy, radius: radius, profile: TwirlProfile(amount: angle))), extent: image.extent)
    }

    /// CIVortexDistortion: like the twirl, with a rotation that falls off linearly,
    /// `inputAngle * (1 - r/R)`, so a large angle (the default is 18 pi, nine turns) winds the
    /// disc into evenly spaced spiral arms. Outside the disc, unchanged. Output extent: the
    /// input's.
    static let vortexDistortion = BuiltinFilter(Catalog.CIVortexDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let angle = try args.number(kCIInputAngleKey)
        if angle == 0 || radius <= 0 { return image }
        return warped(image, .vortex(RadialMap(cx: cx, cy: cy, radius: radius, profile: VortexProfile(amount: angle))), extent: image.extent)
    }

    /// CIPinchDistortion: pinches the disc towards its centre. The point at distance r < R
    /// samples the input at distance `R * (r/R)^(1 / (1 + inputScale))` in the same direction
    /// (a radial power: the centre is shrunk, the rim stays put). `inputScale` 0 is the
    /// identity; it is clamped at 0 as Apple's minimum says. Outside the disc, unchanged.
    /// Output extent: the input's.
    static let pinchDistortion = BuiltinFilter(Catalog.CIPinchDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let scale = try args.number(kCIInputScaleKey)
        if scale == 0 || radius <= 0 { return image }
        return warped(image, .pinch(RadialMap(cx: cx, cy: cy, radius: radius, profile: PinchProfile(amount: scale))), extent: image.extent)
    }

    /// CIBumpDistortion: a convex bump (positive `inputScale`, the centre magnified) or a
    /// concave one (negative, the centre shrunk). The point at distance r < R samples the
    /// input at distance `r * (1 - s * (1 - r/R))^2` in the same direction, s = `inputScale`;
    /// at the rim the factor is 1, so the bump joins the unchanged outside. Output extent:
    /// the input's.
    static let bumpDistortion = BuiltinFilter(Catalog.CIBumpDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let scale = try args.number(kCIInputScaleKey)
        if scale == 0 || radius <= 0 { return image }
        return warped(image, .bump(RadialMap(cx: cx, cy: cy, radius: radius, profile: BumpProfile(amount: scale))), extent: image.extent)
    }

    /// CIBumpDistortionLinear: the bump of CIBumpDistortion across a line: the line through
    /// `inputCenter` at `inputAngle` (radians from the x axis). A point at signed distance d
    /// from the line, |d| < R, samples the point at distance `d * (1 - s * (1 - |d|/R))^2`
    /// from the line, at the same position along it (s = `inputScale`, clamped at -1 as
    /// Apple's minimum says); farther away, unchanged. Scale 0 is the identity. Output
    /// extent: the input's.
    static let bumpDistortionLinear = BuiltinFilter(Catalog.CIBumpDistortionLinear) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let angle = try args.number(kCIInputAngleKey), scale = try args.number(kCIInputScaleKey)
        if scale == 0 || radius <= 0 { return image }
        let map = LinearBumpMap(cx: cx, cy: cy, radius: radius, angle: angle, scale: scale)
        return warped(image, .linearBump(map), extent: image.extent)
    }

    /// CIHoleDistortion: a clear hole of `inputRadius` (at least 0.01, Apple's minimum) about
    /// `inputCenter`, the image pushed outward around it. The point at distance r > R samples
    /// the input at distance `sqrt(r^2 - R^2)` in the same direction: the pixels next to the
    /// hole move the most (by up to R), those far away hardly at all. Output extent: the
    /// input's, grown by R on every side (the farthest any pixel moves); infinite stays
    /// infinite.
    static let holeDistortion = BuiltinFilter(Catalog.CIHoleDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let e = image.extent
        let extent = e.isInfiniteOrHuge ? CGRect.infinite : e.insetBy(dx: -radius, dy: -radius)
        return warped(image, .hole(HoleMap(cx: cx, cy: cy, radius: radius)), extent: extent)
    }

    /// CICircleSplashDistortion: the disc of `inputRadius` about `inputCenter` unchanged;
    /// outside it, each point takes the colour of the rim point in its direction (the point at
    /// distance R), so the rim streaks outward. Output extent: infinite (the streaks never
    /// end), as in Core Image.
    static let circleSplashDistortion = BuiltinFilter(Catalog.CICircleSplashDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        return warped(image, .splash(CircleSplashMap(cx: cx, cy: cy, radius: radius)), extent: .infinite)
    }
}

extension BuiltinFilters {
    /// CICircularWrap: wraps the image around a clear circle of `inputRadius` about
    /// `inputCenter`: the image's bottom edge on the circle, its middle column at the top
    /// (turned counter-clockwise by `inputAngle`), columns following the circle clockwise at
    /// their own arc length and rows running outward, so the distortion grows with the
    /// distance from the centre. A point at distance r >= R, angle phi samples
    /// `(midX - R * wrap(phi - angle - pi/2), minY + r - R)`, wrap into -pi...pi; columns
    /// farther than pi R from the middle are not shown. Output extent: the square about the
    /// centre of half-side R + the image's height; an infinite image wraps about the centre's
    /// own column and row, with an infinite extent.
    static let circularWrap = BuiltinFilter(Catalog.CICircularWrap) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let angle = try args.number(kCIInputAngleKey)
        let e = image.extent
        if e.isEmpty { return .empty() }
        if e.isInfiniteOrHuge {
            let map = CircularWrapMap(cx: cx, cy: cy, radius: radius, angle: angle, midX: cx, minY: cy)
            return warped(image, .circularWrap(map), extent: .infinite)
        }
        let reach = radius + Double(e.height)
        let map = CircularWrapMap(cx: cx, cy: cy, radius: radius, angle: angle, midX: Double(e.midX), minY: Double(e.minY))
        return warped(image, .circularWrap(map), extent: CGRect(x: cx - reach, y: cy - reach, width: 2 * reach, height: 2 * reach))
    }

    /// CILightTunnel: turns the disc of `inputRadius` about `inputCenter` into a tunnel whose
    /// walls are the disc's rim: a point at distance r < R and angle phi samples the rim point
    /// at angle `phi - inputRotation * ln(R / r)` (a logarithmic spiral, tighter towards the
    /// centre; radial streaks for rotation 0). Outside the disc, unchanged; radius 0 is the
    /// identity. Output extent: the input's.
    static let lightTunnel = BuiltinFilter(Catalog.CILightTunnel) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let rotation = try args.number("inputRotation")
        if radius <= 0 { return image }
        return warped(image, .tunnel(LightTunnelMap(cx: cx, cy: cy, radius: radius, rotation: rotation)), extent: image.extent)
    }

    /// CITorusLensDistortion: a ring-shaped glass lens over the image: centre-line radius
    /// `inputRadius`, width `inputWidth`, a half-disc cross-section, refractive index
    /// `inputRefraction`. A vertical ray meeting the lens at offset p = r - R from the centre
    /// line (|p| < W/2, surface height h = sqrt((W/2)^2 - p^2), sin i = |p| / (W/2)) refracts
    /// to sin t = sin i / n and lands h * tan(i - t) closer to the centre line (farther for
    /// n < 1; capped at W): the point samples the input at distance R + p - sign(p) * that,
    /// in its own direction. Refraction 1 or width 0 is the identity. Outside the ring,
    /// unchanged. Output extent: the input's.
    static let torusLensDistortion = BuiltinFilter(Catalog.CITorusLensDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let width = try args.number(kCIInputWidthKey), n = try args.number("inputRefraction")
        if width <= 0 || n == 1 { return image }
        let map = TorusLensMap(cx: cx, cy: cy, radius: radius, width: width, refraction: n)
        return warped(image, .torus(map), extent: image.extent)
    }
}

extension BuiltinFilters {
    /// CIDisplacementDistortion: moves each pixel's sample point by the displacement image:
    /// the output at p is the input at `p + inputScale * (r - 0.5, g - 0.5)`, r and g the
    /// displacement image's red and green at p (working-space values, clamped to 0...1; clear
    /// outside its extent, so there the shift is -scale/2 on both axes). Scale 0 is the
    /// identity. Output extent: the input's, grown by scale/2 (the farthest a pixel moves).
    static let displacementDistortion = BuiltinFilter(Catalog.CIDisplacementDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let displacement = try args.image("inputDisplacementImage")
        let scale = try args.number(kCIInputScaleKey)
        if scale == 0 { return image }
        let e = image.extent
        if e.isEmpty { return .empty() }
        let extent = e.isInfiniteOrHuge ? CGRect.infinite : e.insetBy(dx: -scale / 2, dy: -scale / 2)
        return CIImage(node: DisplacementNode(input: image.node, displacement: displacement.node, scale: scale, extent: extent))
    }
}

extension BuiltinFilters {
    /// CIGlassDistortion: the input seen through patterned glass whose relief is the
    /// texture's luminance. The texture is placed with its extent's centre on `inputCenter`
    /// (an infinite texture stays where it is); the output at p is the input at
    /// `p + inputScale * (dL/dx, dL/dy)`, the central differences of the texture's luminance
    /// L = 0.2126 r + 0.7152 g + 0.0722 b (working space, clamped to 0...1) at p, so samples
    /// move up the relief and its raised parts magnify. Scale 0 is the identity. Output
    /// extent: the input's, grown by scale/2 (the farthest a pixel moves).
    static let glassDistortion = BuiltinFilter(Catalog.CIGlassDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        var texture = try args.image("inputTexture")
        let c = try args.point(kCIInputCenterKey)
        let scale = try args.number(kCIInputScaleKey)
        if scale == 0 { return image }
        let e = image.extent, t = texture.extent
        if e.isEmpty { return .empty() }
        if !t.isInfiniteOrHuge && !t.isEmpty {
            texture = texture.transformed(by: CGAffineTransform(translationX: c.x - t.midX, y: c.y - t.midY))
        }
        let extent = e.isInfiniteOrHuge ? CGRect.infinite : e.insetBy(dx: -scale / 2, dy: -scale / 2)
        return CIImage(node: DisplacementNode(input: image.node, displacement: texture.node, scale: scale, mode: .gradient, extent: extent))
    }
}
