// A camera turned about its own centre: the homography K R K^-1 of a pinhole camera with the
// image's focal length. CIPerspectiveRotate sets R from three angles; the keystone filters
// (KeystoneCorrection.swift) solve R from guide lines.

import Foundation

/// A 3x3 rotation as its three rows (R maps a ray in the input camera's frame to the output
/// camera's frame: x right, y up, z forward into the scene).
struct CameraRotation: Equatable, Sendable {
    var x: SIMD3<Double>, y: SIMD3<Double>, z: SIMD3<Double>

    static let identity = CameraRotation(x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1])

    /// `Rroll * Rpitch * Ryaw` (yaw applied first). Positive yaw turns the picture's right
    /// edge away from the viewer, positive pitch its top edge, positive roll turns it
    /// counter-clockwise (y up).
    init(pitch: Double, yaw: Double, roll: Double) {
        let (cy, sy) = (cos(yaw), sin(yaw)), (cp, sp) = (cos(pitch), sin(pitch)), (cr, sr) = (cos(roll), sin(roll))
        let yawM = CameraRotation(x: [cy, 0, -sy], y: [0, 1, 0], z: [sy, 0, cy])
        let pitchM = CameraRotation(x: [1, 0, 0], y: [0, cp, -sp], z: [0, sp, cp])
        let rollM = CameraRotation(x: [cr, -sr, 0], y: [sr, cr, 0], z: [0, 0, 1])
        self = rollM.times(pitchM).times(yawM)
    }

    init(x: SIMD3<Double>, y: SIMD3<Double>, z: SIMD3<Double>) { self.x = x; self.y = y; self.z = z }

    /// self * m.
    func times(_ m: CameraRotation) -> CameraRotation {
        let c0 = SIMD3(m.x.x, m.y.x, m.z.x), c1 = SIMD3(m.x.y, m.y.y, m.z.y), c2 = SIMD3(m.x.z, m.y.z, m.z.z)
        func row(_ r: SIMD3<Double>) -> SIMD3<Double> { SIMD3((r * c0).sum(), (r * c1).sum(), (r * c2).sum()) }
        return CameraRotation(x: row(x), y: row(y), z: row(z))
    }

    /// The homography of this rotation for a camera of focal length `f` pixels whose optical
    /// axis meets the image at `centre`: `T K R K^-1`, K the camera matrix, T the translation
    /// that brings the centre's image back onto the centre (so the subject stays in place).
    /// Nil when the centre would turn to or behind the horizon (its ray leaves the view).
    func homography(focal f: Double, centre c: SIMD2<Double>) -> Homography? {
        guard f > 0, f.isFinite, z.z > 1e-9 else { return nil }
        // K R K^-1, written out: column j of R K^-1 is R's column j over f for x and y, and
        // R's column 3 minus the centre's share for the constant term.
        let kinv = Homography(a: 1 / f, b: 0, c: -c.x / f, d: 0, e: 1 / f, f: -c.y / f, g: 0, h: 0, i: 1)
        let rot = Homography(a: x.x, b: x.y, c: x.z, d: y.x, e: y.y, f: y.z, g: z.x, h: z.y, i: z.z)
        let k = Homography(a: f, b: 0, c: c.x, d: 0, e: f, f: c.y, g: 0, h: 0, i: 1)
        let shiftX = f * x.z / z.z, shiftY = f * y.z / z.z
        let back = Homography(a: 1, b: 0, c: -shiftX, d: 0, e: 1, f: -shiftY, g: 0, h: 0, i: 1)
        let m = back.concatenating(after: k.concatenating(after: rot.concatenating(after: kinv)))
        return m.isInvertible ? m : nil
    }
}

/// The focal length in pixels of a 35 mm-equivalent focal length `mm` on an image of
/// `extent`: `mm / 43.2666 * diagonal` (43.27 mm is the diagonal of the 36 x 24 mm frame, so
/// the angle of view along the diagonal is the 35 mm camera's).
func focalPixels(_ mm: Double, extent e: CGRect) -> Double {
    mm / (36.0 * 36.0 + 24.0 * 24.0).squareRoot() * Double(hypot(e.width, e.height))
}

/// `image` through the camera rotation `r` with a 35 mm-equivalent focal length `mm` (the
/// image's centre is the optical axis): empty for an image without a finite extent, or when
/// the centre turns behind the camera.
func cameraRotated(_ image: CIImage, _ r: CameraRotation, focalLength mm: Double) -> CIImage {
    let e = image.extent
    if e.isEmpty { return .empty() }
    if r == .identity { return image }
    guard !e.isInfiniteOrHuge,
        let h = r.homography(focal: focalPixels(mm, extent: e), centre: SIMD2(Double(e.midX), Double(e.midY)))
    else { return .empty() }
    return projected(image, h)
}

extension FilterInputLimit {
    /// The camera filters' 35 mm-equivalent focal length.
    static let focalLength = FilterInputLimit(minimum: 0.1, reason: "the focal length divides every point's offset from the optical axis, so it must be positive")
}

extension BuiltinFilters {
    /// CIPerspectiveRotate: Applies a 3D rotation (pitch, yaw, roll) as a homography using a focal length.
    static let perspectiveRotate = BuiltinFilter(
        FilterDescriptor(
            "CIPerspectiveRotate", "Perspective Rotate", "Applies a 3D rotation (pitch, yaw, roll) as a homography using a focal length.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video],
            macOS: "10.15", iOS: "13", factory: "perspectiveRotate", outputKeys: ["outputImage", "outputTransform"],
            doc: """
                The picture as a pinhole camera would see it after turning about
                its own centre by `pitch`, `yaw` and `roll`. The camera's focal length is
                `focalLength` (35 mm equivalent, along the image's diagonal: `f = focalLength / 43.27
                * diagonal` pixels) and its optical axis meets the image's centre. The map is the
                homography `T K R K^-1`: K the camera matrix, `R = Rroll Rpitch Ryaw` (yaw first), T
                the shift that keeps the image's centre where it was. Output extent: the bounding box
                of the turned image (infinite when it reaches the horizon, where it is clear beyond);
                empty for an image without a finite extent or when the centre turns out of view.
                """,
            inputs: [
                .image(),
                .number(
                    "inputFocalLength", "Focal Length", .scalar, default: 28, slider: 15...100, limit: .focalLength,
                    "The 35 mm-equivalent focal length of the picture, in mm."),
                .number(
                    "inputPitch", "Pitch", .angle, default: 0, identity: 0, slider: -0.5235987755982988...0.5235987755982988,
                    """
                    The turn about the horizontal axis, in radians; positive turns the top
                    edge away (it narrows).
                    """),
                .number(
                    "inputYaw", "Yaw", .angle, default: 0, identity: 0, slider: -0.5235987755982988...0.5235987755982988,
                    """
                    The turn about the vertical axis, in radians; positive turns the right
                    edge away.
                    """),
                .number(
                    "inputRoll", "Roll", .angle, default: 0, identity: 0, slider: -0.7853981633974483...0.7853981633974483,
                    """
                    The turn in the picture's plane, in radians; positive is
                    counter-clockwise.
                    """),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let r = CameraRotation(pitch: try args.number("inputPitch"), yaw: try args.number("inputYaw"), roll: try args.number("inputRoll"))
        return cameraRotated(image, r, focalLength: try args.number("inputFocalLength"))
    }
}
