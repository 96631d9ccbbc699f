// Keystone correction: the camera rotation (PerspectiveRotate.swift) that makes guide lines
// of the picture vertical, horizontal or both, solved from their vanishing points.

import Foundation

/// Which guide lines a keystone correction straightens.
enum KeystoneKind: Sendable {
    /// bottomLeft-topLeft and bottomRight-topRight become vertical.
    case vertical
    /// bottomLeft-bottomRight and topLeft-topRight become horizontal.
    case horizontal
    /// Both.
    case combined
}

/// The rotation taking the vanishing directions of the guide lines to the camera's axes.
///
/// With K the camera matrix (focal `f` pixels, optical axis at `centre`), the two lines of a
/// pair meet at the vanishing point v (homogeneous; at infinity for parallel lines), whose
/// ray `d = K^-1 v` is the 3D direction of both lines. The rotation R whose rows are an
/// orthonormal frame (e_x, e_y, e_z) maps e_y to the camera's up axis and e_x to its right
/// axis, so lines along those directions project vertical or horizontal:
/// - vertical: e_y = d_vertical (pointing up), e_x = the camera's x axis made orthogonal to it;
/// - horizontal: e_x = d_horizontal (pointing right), e_y = the camera's y axis made orthogonal;
/// - combined: e_y = d_vertical, e_x = d_horizontal made orthogonal to it (vertical first).
/// e_z = e_x x e_y. For guides that are already upright this is the identity; for a
/// picture taken with the camera turned by Q, lines that are upright in the scene give
/// exactly R = Q^-1. Nil when a pair's lines coincide or a direction is degenerate.
func keystoneRotation(
    _ kind: KeystoneKind, bottomLeft bl: SIMD2<Double>, bottomRight br: SIMD2<Double>,
    topRight tr: SIMD2<Double>, topLeft tl: SIMD2<Double>, focal f: Double, centre c: SIMD2<Double>
) -> CameraRotation? {
    /// The direction (unit ray) of the vanishing point of lines p0-p1 and q0-q1, oriented so
    /// that its component `axis` is not negative.
    func vanishing(_ p0: SIMD2<Double>, _ p1: SIMD2<Double>, _ q0: SIMD2<Double>, _ q1: SIMD2<Double>, axis: Int) -> SIMD3<Double>? {
        func line(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> SIMD3<Double> { cross(SIMD3(a, 1), SIMD3(b, 1)) }
        let l = line(p0, p1), m = line(q0, q1)
        guard (l.x * l.x + l.y * l.y) > 0, (m.x * m.x + m.y * m.y) > 0 else { return nil }
        let v = cross(l, m)
        var d = SIMD3((v.x - c.x * v.z) / f, (v.y - c.y * v.z) / f, v.z)
        let n = length(d)
        guard n > 0, n.isFinite else { return nil }
        d /= n
        if d[axis] < 0 { d = -d }
        return d
    }
    /// `v` without its component along unit `u`, normalised.
    func orthogonal(_ v: SIMD3<Double>, to u: SIMD3<Double>) -> SIMD3<Double>? {
        let w = v - (v * u).sum() * u
        let n = length(w)
        return n > 1e-9 ? w / n : nil
    }
    var ex: SIMD3<Double>, ey: SIMD3<Double>
    switch kind {
    case .vertical:
        guard let up = vanishing(bl, tl, br, tr, axis: 1), let right = orthogonal([1, 0, 0], to: up) else { return nil }
        (ex, ey) = (right, up)
    case .horizontal:
        guard let right = vanishing(bl, br, tl, tr, axis: 0), let up = orthogonal([0, 1, 0], to: right) else { return nil }
        (ex, ey) = (right, up)
    case .combined:
        guard let up = vanishing(bl, tl, br, tr, axis: 1), let h = vanishing(bl, br, tl, tr, axis: 0),
            let right = orthogonal(h, to: up)
        else { return nil }
        (ex, ey) = (right, up)
    }
    return CameraRotation(x: ex, y: ey, z: cross(ex, ey))
}

@inline(__always) private func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
@inline(__always) private func length(_ a: SIMD3<Double>) -> Double { (a * a).sum().squareRoot() }

extension BuiltinFilters {
    /// The family of CIKeystoneCorrectionVertical, CIKeystoneCorrectionHorizontal, CIKeystoneCorrectionCombined: one implementation, a table per filter.
    static let keystoneCorrections = BuiltinFilter.family(
        doc: """
            The keystone corrections: the picture as a camera turned about its own centre would
            have taken it with the guide lines upright, so that lines that are straight up (or
            level) in the scene come out vertical (or horizontal). The guide points, in the input
            image, mark two lines of each kind: bottomLeft-topLeft and bottomRight-topRight should
            be vertical, bottomLeft-bottomRight and topLeft-topRight horizontal. Each pair meets at
            a vanishing point whose ray through the camera is the lines' direction in the scene; the
            filter solves the rotation taking those directions to the camera's axes (see
            `keystoneRotation`) and applies it as CIPerspectiveRotate does: the homography
            `T K R K^-1` with the focal length `focalLength` (35 mm equivalent along the diagonal)
            and the optical axis at the image's centre, T keeping the centre in place. Output
            extent: the bounding box of the corrected image (a trapezoid for one pair of guides).
            A guide point that is not set is the matching corner of the image's extent (all four
            unset: no correction); guides whose lines coincide, an image without a finite extent,
            or a rotation turning the centre out of view give an empty image.
            """,
        categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video],
        inputs: [
            .image(),
            .number("inputFocalLength", "Focal Length", .scalar, default: 28, limit: .focalLength, "The 35 mm-equivalent focal length of the picture, in mm."),
            .vector(
                "inputTopLeft", "Top Left", .position,
                """
                The top end of the left vertical guide, and the left end of the top
                horizontal guide.
                """),
            .vector(
                "inputTopRight", "Top Right", .position,
                """
                The top end of the right vertical guide, and the right end of the top
                horizontal guide.
                """),
            .vector(
                "inputBottomRight", "Bottom Right", .position,
                """
                The bottom end of the right vertical guide, and the right end of
                the bottom horizontal guide.
                """),
            .vector(
                "inputBottomLeft", "Bottom Left", .position,
                """
                The bottom end of the left vertical guide, and the left end of the
                bottom horizontal guide.
                """),
        ],
        [
            (
                FilterDescriptor(
                    "CIKeystoneCorrectionVertical", "Vertical Keystone Correction", "Corrects vertical keystone distortion from guide points.",
                    macOS: "10.15", iOS: "13", factory: "keystoneCorrectionVertical", outputKeys: ["outputImage", "outputTransform", "outputRotationFilter"],
                    doc: "The left and right guides become vertical.",
                ),
                KeystoneKind.vertical
            ),
            (
                FilterDescriptor(
                    "CIKeystoneCorrectionHorizontal", "Horizontal Keystone Correction", "Corrects horizontal keystone distortion from guide points.",
                    macOS: "10.15", iOS: "13", factory: "keystoneCorrectionHorizontal", outputKeys: ["outputImage", "outputTransform", "outputRotationFilter"],
                    doc: "The top and bottom guides become horizontal.",
                ),
                .horizontal
            ),
            (
                FilterDescriptor(
                    "CIKeystoneCorrectionCombined", "Combined Keystone Correction", "Corrects combined horizontal and vertical keystone distortion from guide points.",
                    macOS: "10.15", iOS: "13", factory: "keystoneCorrectionCombined", outputKeys: ["outputImage", "outputTransform", "outputRotationFilter"],
                    doc: """
                        The left and right guides become vertical and the top
                        and bottom ones horizontal (where the two disagree, vertical wins).
                        """,
                ),
                .combined
            ),
        ]
    ) { args, kind throws(CIFilterError) in
        let image = try args.image()
        let e = image.extent
        if e.isEmpty { return .empty() }
        guard !e.isInfiniteOrHuge else { return .empty() }
        func guide(_ key: String, _ corner: CGPoint) throws(CIFilterError) -> SIMD2<Double> {
            let p = args.values[key] == nil ? corner : try args.point(key)
            return SIMD2(Double(p.x), Double(p.y))
        }
        let bl = try guide("inputBottomLeft", CGPoint(x: e.minX, y: e.minY)), br = try guide("inputBottomRight", CGPoint(x: e.maxX, y: e.minY))
        let tr = try guide("inputTopRight", CGPoint(x: e.maxX, y: e.maxY)), tl = try guide("inputTopLeft", CGPoint(x: e.minX, y: e.maxY))
        let mm = try args.number("inputFocalLength")
        let centre = SIMD2(Double(e.midX), Double(e.midY))
        guard
            let r = keystoneRotation(
                kind, bottomLeft: bl, bottomRight: br, topRight: tr, topLeft: tl,
                focal: focalPixels(mm, extent: e), centre: centre)
        else { return .empty() }
        return cameraRotated(image, r, focalLength: mm)
    }
}
