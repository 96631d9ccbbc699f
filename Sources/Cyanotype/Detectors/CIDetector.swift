import Foundation

// Core Image's CIDetector: faces (Haar cascades from Debian's opencv-data), rectangles (edges
// and a quadrilateral fit), QR codes (zbar, opened on first use) and text regions (connected
// components grouped into lines), each run on an 8-bit grey rendering of the image made by the
// engine. Options are read once into `DetectorOptions`, a value.

/// `CIDetector` type: faces (`CIFaceFeature`).
public let CIDetectorTypeFace = "CIDetectorTypeFace"
/// `CIDetector` type: quadrilaterals such as documents (`CIRectangleFeature`).
public let CIDetectorTypeRectangle = "CIDetectorTypeRectangle"
/// `CIDetector` type: QR codes, decoded (`CIQRCodeFeature`).
public let CIDetectorTypeQRCode = "CIDetectorTypeQRCode"
/// `CIDetector` type: regions of text (`CITextFeature`).
public let CIDetectorTypeText = "CIDetectorTypeText"

/// Detector option: `CIDetectorAccuracyLow` (faster, fewer scales) or `CIDetectorAccuracyHigh`.
public let CIDetectorAccuracy = "CIDetectorAccuracy"
/// `CIDetectorAccuracy` value: fewer scales and a coarser search.
public let CIDetectorAccuracyLow = "CIDetectorAccuracyLow"
/// `CIDetectorAccuracy` value: the full search (the default here).
public let CIDetectorAccuracyHigh = "CIDetectorAccuracyHigh"
/// Detector option: track faces across video frames (accepted; Cyanotype does not track).
public let CIDetectorTracking = "CIDetectorTracking"
/// Detector option: the smallest feature to find, as a fraction (0...1) of the image's smaller
/// side.
public let CIDetectorMinFeatureSize = "CIDetectorMinFeatureSize"
/// Detector option: the most features to return (rectangles; default 1, as Core Image's).
public let CIDetectorMaxFeatureCount = "CIDetectorMaxFeatureCount"
/// Detector option: how many face angles to search (1, 3, 5, 7, 9 or 11; default 1: upright).
public let CIDetectorNumberOfAngles = "CIDetectorNumberOfAngles"
/// Feature option: the image's EXIF orientation (1...8); features are searched upright in
/// that orientation and reported in the image's own coordinates.
public let CIDetectorImageOrientation = "CIDetectorImageOrientation"
/// Feature option: tell whether each face's eyes are closed.
public let CIDetectorEyeBlink = "CIDetectorEyeBlink"
/// Feature option: tell whether each face smiles.
public let CIDetectorSmile = "CIDetectorSmile"
/// Feature option: the camera's focal length (accepted for rectangles; not used).
public let CIDetectorFocalLength = "CIDetectorFocalLength"
/// Feature option: the rectangles' expected width / height; quadrilaterals far from it are
/// dropped.
public let CIDetectorAspectRatio = "CIDetectorAspectRatio"
/// Feature option: return the characters of each text region as its `subFeatures`.
public let CIDetectorReturnSubFeatures = "CIDetectorReturnSubFeatures"

/// Why a detector found nothing although there may be something to find: a library or model
/// file it needs is missing. `CIDetector.features(in:)` returns `[]` then, as Core Image's API
/// has no error; `CIDetector.detectFeatures(in:options:)` throws it.
public enum CIDetectorError: Error, CustomStringConvertible, Equatable, Sendable {
    /// zbar (Debian `libzbar0`), which decodes QR codes, could not be opened.
    case libraryUnavailable(String)
    /// A Haar cascade file (Debian `opencv-data`) is missing or unreadable.
    case modelMissing(path: String)
    /// A Haar cascade file could not be read as one.
    case modelUnreadable(path: String, reason: String)
    /// The image could not be rendered for detection (infinite extent, too large, a failed source).
    case renderFailed(String)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case .libraryUnavailable(let message):
            return "\(message); install libzbar0 (Debian) to detect QR codes"
        case .modelMissing(let path):
            return "the face detector's model \(path) is missing; install Debian's opencv-data package"
        case .modelUnreadable(let path, let reason):
            return "the face detector's model \(path) is not a Haar cascade Cyanotype can read: \(reason)"
        case .renderFailed(let reason):
            return "the image could not be rendered for detection: \(reason)"
        }
    }
}

/// An image processor that finds faces, rectangles, QR codes or text in an image, as Core
/// Image's. Reuse one: a face detector loads its cascades once.
public final class CIDetector: @unchecked Sendable {
    // Immutable after init; the cascades are loaded in a lock-guarded cache.
    let kind: Kind
    let context: CIContext
    let options: DetectorOptions

    /// The detectors there are.
    enum Kind: Sendable { case face, rectangle, qrCode, text }

    /// A detector of `type` (`CIDetectorTypeFace`, `CIDetectorTypeRectangle`,
    /// `CIDetectorTypeQRCode`, `CIDetectorTypeText`) configured by `options`; nil for any other
    /// type, as Core Image's. `context` renders the images (a new one when nil).
    public init?(ofType type: String, context: CIContext?, options: [String: Any]? = nil) {
        switch type {
        case CIDetectorTypeFace: kind = .face
        case CIDetectorTypeRectangle: kind = .rectangle
        case CIDetectorTypeQRCode: kind = .qrCode
        case CIDetectorTypeText: kind = .text
        default: return nil
        }
        self.context = context ?? CIContext()
        self.options = DetectorOptions(options ?? [:], kind: kind)
    }

    /// A detector of `kind` with options already read (tests point it at other model files).
    init(kind: Kind, context: CIContext, options: DetectorOptions) {
        self.kind = kind
        self.context = context
        self.options = options
    }

    /// The features found in `image`, in its coordinates (origin bottom-left). Empty when none
    /// are found or the detector cannot run (see `detectFeatures(in:options:)` for why).
    public func features(in image: CIImage) -> [CIFeature] {
        features(in: image, options: nil)
    }

    /// The features found in `image` with per-image `options` (`CIDetectorImageOrientation`,
    /// `CIDetectorEyeBlink`, `CIDetectorSmile`, `CIDetectorAspectRatio`,
    /// `CIDetectorFocalLength`, `CIDetectorReturnSubFeatures`).
    public func features(in image: CIImage, options: [String: Any]? = nil) -> [CIFeature] {
        (try? detectFeatures(in: image, options: options)) ?? []
    }

    /// Cyanotype: `features(in:options:)`, throwing `CIDetectorError` when a library or model
    /// the detector needs is missing or the image cannot be rendered, instead of returning `[]`.
    public func detectFeatures(in image: CIImage, options featureOptions: [String: Any]? = nil) throws(CIDetectorError) -> [CIFeature] {
        var o = options
        o.merge(featureOptions ?? [:])
        let extent = image.extent
        guard !extent.isInfinite, extent.width >= 1, extent.height >= 1 else {
            throw .renderFailed("the image has no finite extent; crop it first")
        }
        // Detect upright: turn the image by its orientation, and map what is found back.
        let upright = image.oriented(forExifOrientation: Int32(o.orientation))
        let back = o.orientation == 1 ? CGAffineTransform.identity : orientationMap(image, o.orientation).inverted()
        let found: [CIFeature]
        switch kind {
        case .qrCode: found = try QRCodeDetection.detect(upright, context, o)
        case .rectangle: found = try RectangleDetection.detect(upright, context, o)
        case .face: found = try FaceDetection.detect(upright, context, o)
        case .text: found = try TextDetection.detect(upright, context, o)
        }
        return o.orientation == 1 ? found : found.map { remap($0, back) }
    }

    /// The map `oriented(forExifOrientation:)` applies to `image`'s points.
    private func orientationMap(_ image: CIImage, _ orientation: Int) -> CGAffineTransform {
        let toOrigin = CGAffineTransform(translationX: -image.extent.minX, y: -image.extent.minY)
        return toOrigin.concatenating(image.orientationTransform(forExifOrientation: Int32(orientation)))
    }

    /// `feature` with its points mapped by `t` (corners keep their names: they name the
    /// feature's own sides, which the orientation turned upright).
    private func remap(_ feature: CIFeature, _ t: CGAffineTransform) -> CIFeature {
        let p = { (q: CGPoint) in q.applying(t) }
        switch feature {
        case let f as CIRectangleFeature:
            return CIRectangleFeature(
                corners: Quadrilateral(topLeft: f.topLeft, topRight: f.topRight, bottomLeft: f.bottomLeft, bottomRight: f.bottomRight).mapped(p))
        case let f as CIQRCodeFeature:
            return CIQRCodeFeature(
                message: f.messageString,
                corners: Quadrilateral(topLeft: f.topLeft, topRight: f.topRight, bottomLeft: f.bottomLeft, bottomRight: f.bottomRight).mapped(p))
        case let f as CITextFeature:
            let subs = (f.subFeatures as? [CITextFeature])?.compactMap { remap($0, t) as? CITextFeature }
            return CITextFeature(
                corners: Quadrilateral(topLeft: f.topLeft, topRight: f.topRight, bottomLeft: f.bottomLeft, bottomRight: f.bottomRight).mapped(p),
                subFeatures: subs)
        case let f as CIFaceFeature:
            return CIFaceFeature(
                bounds: f.bounds.applying(t), leftEye: f.hasLeftEyePosition ? p(f.leftEyePosition) : nil,
                rightEye: f.hasRightEyePosition ? p(f.rightEyePosition) : nil, mouth: f.hasMouthPosition ? p(f.mouthPosition) : nil,
                faceAngle: f.hasFaceAngle ? f.faceAngle : nil, hasSmile: f.hasSmile, leftEyeClosed: f.leftEyeClosed,
                rightEyeClosed: f.rightEyeClosed)
        default:
            return feature
        }
    }
}

/// A detector's options, read from Core Image's dictionary (numbers as `Int`, `Double`,
/// `CGFloat`, `Float`, `Bool`, `NSNumber` or numeric strings).
struct DetectorOptions: Sendable {
    /// `CIDetectorAccuracyHigh` (the default) or not.
    var highAccuracy = true
    /// `CIDetectorMinFeatureSize`, 0...1 of the smaller side (nil: the detector's default).
    var minFeatureSize: Double?
    /// `CIDetectorMaxFeatureCount` (nil: the detector's default).
    var maxFeatureCount: Int?
    /// `CIDetectorNumberOfAngles` (1, 3, 5, 7, 9 or 11).
    var numberOfAngles = 1
    /// `CIDetectorImageOrientation`, 1...8.
    var orientation = 1
    /// `CIDetectorEyeBlink`.
    var eyeBlink = false
    /// `CIDetectorSmile`.
    var smile = false
    /// `CIDetectorAspectRatio` (width / height), if given.
    var aspectRatio: Double?
    /// `CIDetectorReturnSubFeatures`.
    var returnSubFeatures = false
    /// The face cascades' folder (Cyanotype: `CYANOTYPE_HAAR_CASCADES` in the environment, else
    /// Debian's).
    var cascadeFolder = ProcessInfo.processInfo.environment["CYANOTYPE_HAAR_CASCADES"] ?? "/usr/share/opencv4/haarcascades"

    init(_ d: [String: Any], kind: CIDetector.Kind) {
        merge(d)
    }

    /// The options of `d` over these.
    mutating func merge(_ d: [String: Any]) {
        if let v = d[CIDetectorAccuracy] as? String { highAccuracy = v != CIDetectorAccuracyLow }
        if let v = OptionValue.number(d[CIDetectorMinFeatureSize]), v.isFinite { minFeatureSize = min(max(v, 0), 1) }
        // Clamped before the conversion: a huge count must not trap.
        if let v = OptionValue.number(d[CIDetectorMaxFeatureCount]), v.isFinite { maxFeatureCount = Int(min(max(v, 1), 4096)) }
        if let v = OptionValue.number(d[CIDetectorNumberOfAngles]), v.isFinite {
            numberOfAngles = [1, 3, 5, 7, 9, 11].min { abs(Double($0) - v) < abs(Double($1) - v) } ?? 1
        }
        if let v = OptionValue.integer(d[CIDetectorImageOrientation]), (1...8).contains(v) { orientation = v }
        if let v = OptionValue.flag(d[CIDetectorEyeBlink]) { eyeBlink = v }
        if let v = OptionValue.flag(d[CIDetectorSmile]) { smile = v }
        if let v = OptionValue.number(d[CIDetectorAspectRatio]), v.isFinite, v > 0 { aspectRatio = v }
        if let v = OptionValue.flag(d[CIDetectorReturnSubFeatures]) { returnSubFeatures = v }
    }
}

/// An 8-bit grey rendering of (part of) an image, rows top-down, and the map from its pixels
/// back to the image's coordinates.
struct GreyRaster: Sendable {
    var width: Int
    var height: Int
    /// BT.601 luma of the sRGB rendering, `width * height`, top row first.
    var pixels: [UInt8]
    /// The image rectangle the raster covers.
    var imageRect: CGRect
    /// Raster pixels per image unit.
    var scale: Double

    /// `image` (its extent) rendered to grey through `context`, scaled down so its longer side
    /// is at most `maxSide` pixels.
    init(_ image: CIImage, _ context: CIContext, maxSide: Int) throws(CIDetectorError) {
        let e = image.extent.integral
        let s = min(1, Double(maxSide) / Double(max(e.width, e.height)))
        var img = image.cropped(to: e)
        if s < 1 {
            // The engine's area-averaging downscale keeps thin lines.
            img = img.clampedToExtent().applyingFilter("CILanczosScaleTransform", parameters: ["inputScale": s, "inputAspectRatio": 1.0])
        }
        let target = CGRect(x: (e.minX * s).rounded(.down), y: (e.minY * s).rounded(.down), width: max(1, (e.width * s).rounded()), height: max(1, (e.height * s).rounded()))
        // Over white, opaque: a transparent margin reads as paper, not as black.
        let flat = img.cropped(to: target).composited(over: CIImage(color: CIColor(red: 1, green: 1, blue: 1)).cropped(to: target))
        do {
            let r = try context.renderToData(flat, from: target, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
            width = r.width
            height = r.height
            pixels = [UInt8](repeating: 0, count: r.width * r.height)
            pixels.withUnsafeMutableBufferPointer { dst in
                r.data.withUnsafeBytes { src in
                    let bytes = src.bindMemory(to: UInt8.self)
                    for y in 0..<r.height {
                        let row = bytes.baseAddress! + y * r.rowBytes, out = dst.baseAddress! + y * r.width
                        for x in 0..<r.width {
                            // BT.601 luma of the sRGB values, in OpenCV's fixed point (its
                            // cascades were trained on that grey).
                            let red = Int(row[4 * x]), green = Int(row[4 * x + 1]), blue = Int(row[4 * x + 2])
                            out[x] = UInt8((red * 4899 + green * 9617 + blue * 1868 + 8192) >> 14)
                        }
                    }
                }
            }
        } catch {
            throw .renderFailed(String(describing: error))
        }
        imageRect = e
        scale = Double(width) / Double(e.width)
    }

    /// The image point of raster position (`x`, `y`) (pixel corners; y down from the top).
    func imagePoint(_ x: Double, _ y: Double) -> CGPoint {
        CGPoint(x: imageRect.minX + x / scale, y: imageRect.maxY - y / scale)
    }
}
