import Foundation

// Core Image's feature classes: what a `CIDetector` finds. Coordinates are in the image's
// space (origin bottom-left, as Core Image's), whatever orientation the detector was told.
// Every stored property is a `let`, so features can cross threads.

/// `CIFeature.type` of a `CIFaceFeature`.
public let CIFeatureTypeFace = "Face"
/// `CIFeature.type` of a `CIRectangleFeature`.
public let CIFeatureTypeRectangle = "Rectangle"
/// `CIFeature.type` of a `CIQRCodeFeature`.
public let CIFeatureTypeQRCode = "QRCode"
/// `CIFeature.type` of a `CITextFeature`.
public let CIFeatureTypeText = "Text"

/// A feature a `CIDetector` found in an image: its kind and its bounding rectangle.
open class CIFeature: @unchecked Sendable {
    /// The kind of feature: `CIFeatureTypeFace`, `CIFeatureTypeRectangle`, `CIFeatureTypeQRCode`
    /// or `CIFeatureTypeText`.
    open var type: String { "" }
    /// The smallest rectangle holding the feature, in image coordinates (origin bottom-left).
    public let bounds: CGRect

    /// A feature with `bounds` (the detectors make them; real code only reads them).
    init(bounds: CGRect) { self.bounds = bounds }
}

/// A face found by a face detector: its box and, where the detector could tell, the eyes, the
/// mouth, a smile and closed eyes.
public final class CIFaceFeature: CIFeature, @unchecked Sendable {
    /// `CIFeatureTypeFace`.
    public override var type: String { CIFeatureTypeFace }
    /// Whether `leftEyePosition` was found (the eye on the image's left, as Core Image's).
    public let hasLeftEyePosition: Bool
    /// The centre of the left eye (`.zero` when not found).
    public let leftEyePosition: CGPoint
    /// Whether `rightEyePosition` was found.
    public let hasRightEyePosition: Bool
    /// The centre of the right eye (`.zero` when not found).
    public let rightEyePosition: CGPoint
    /// Whether `mouthPosition` was found (Cyanotype: the centre of a smile found with `CIDetectorSmile`).
    public let hasMouthPosition: Bool
    /// The centre of the mouth (`.zero` when not found).
    public let mouthPosition: CGPoint
    /// Whether the face has a tracking ID (Cyanotype does not track: always false).
    public let hasTrackingID: Bool
    /// The tracking ID (0: Cyanotype does not track faces across frames).
    public let trackingID: Int32
    /// Whether the face has a tracking frame count (always false).
    public let hasTrackingFrameCount: Bool
    /// The number of frames the face has been tracked over (0).
    public let trackingFrameCount: Int32
    /// Whether `faceAngle` is known: true when the detector searched more than one angle.
    public let hasFaceAngle: Bool
    /// The face's rotation in degrees, counter-clockwise (0 when upright).
    public let faceAngle: Float
    /// Whether a smile was found (only when `CIDetectorSmile` was asked for).
    public let hasSmile: Bool
    /// Whether the left eye looks closed (only when `CIDetectorEyeBlink` was asked for).
    public let leftEyeClosed: Bool
    /// Whether the right eye looks closed (only when `CIDetectorEyeBlink` was asked for).
    public let rightEyeClosed: Bool

    init(
        bounds: CGRect, leftEye: CGPoint?, rightEye: CGPoint?, mouth: CGPoint?, faceAngle: Float?, hasSmile: Bool,
        leftEyeClosed: Bool, rightEyeClosed: Bool
    ) {
        hasLeftEyePosition = leftEye != nil
        leftEyePosition = leftEye ?? .zero
        hasRightEyePosition = rightEye != nil
        rightEyePosition = rightEye ?? .zero
        hasMouthPosition = mouth != nil
        mouthPosition = mouth ?? .zero
        hasTrackingID = false
        trackingID = 0
        hasTrackingFrameCount = false
        trackingFrameCount = 0
        hasFaceAngle = faceAngle != nil
        self.faceAngle = faceAngle ?? 0
        self.hasSmile = hasSmile
        self.leftEyeClosed = leftEyeClosed
        self.rightEyeClosed = rightEyeClosed
        super.init(bounds: bounds)
    }
}

/// A quadrilateral found by a rectangle detector (a document, a sign, a screen), by its four
/// corners in image coordinates.
public final class CIRectangleFeature: CIFeature, @unchecked Sendable {
    /// `CIFeatureTypeRectangle`.
    public override var type: String { CIFeatureTypeRectangle }
    /// The upper-left corner.
    public let topLeft: CGPoint
    /// The upper-right corner.
    public let topRight: CGPoint
    /// The lower-left corner.
    public let bottomLeft: CGPoint
    /// The lower-right corner.
    public let bottomRight: CGPoint

    init(corners: Quadrilateral) {
        topLeft = corners.topLeft
        topRight = corners.topRight
        bottomLeft = corners.bottomLeft
        bottomRight = corners.bottomRight
        super.init(bounds: corners.bounds)
    }
}

/// A QR code found and decoded by a QR code detector.
public final class CIQRCodeFeature: CIFeature, @unchecked Sendable {
    /// `CIFeatureTypeQRCode`.
    public override var type: String { CIFeatureTypeQRCode }
    /// The decoded message as text (nil when its bytes are not text).
    public let messageString: String?
    /// The symbol's error-corrected payload, version and level. Cyanotype decodes with zbar,
    /// which does not report them: always nil.
    public let symbolDescriptor: CIQRCodeDescriptor?
    /// The symbol's upper-left corner (the corner of its top-left finder pattern).
    public let topLeft: CGPoint
    /// The symbol's upper-right corner.
    public let topRight: CGPoint
    /// The symbol's lower-left corner.
    public let bottomLeft: CGPoint
    /// The symbol's lower-right corner.
    public let bottomRight: CGPoint

    init(message: String?, corners: Quadrilateral) {
        messageString = message
        symbolDescriptor = nil
        topLeft = corners.topLeft
        topRight = corners.topRight
        bottomLeft = corners.bottomLeft
        bottomRight = corners.bottomRight
        super.init(bounds: corners.bounds)
    }
}

/// A region of text (a line or a word) found by a text detector, with its characters as
/// `subFeatures` when `CIDetectorReturnSubFeatures` was asked for.
public final class CITextFeature: CIFeature, @unchecked Sendable {
    /// `CIFeatureTypeText`.
    public override var type: String { CIFeatureTypeText }
    /// The upper-left corner of the region.
    public let topLeft: CGPoint
    /// The upper-right corner.
    public let topRight: CGPoint
    /// The lower-left corner.
    public let bottomLeft: CGPoint
    /// The lower-right corner.
    public let bottomRight: CGPoint
    /// The characters' regions (`CITextFeature`s), or nil when they were not asked for.
    public let subFeatures: [Any]?

    init(corners: Quadrilateral, subFeatures: [CITextFeature]?) {
        topLeft = corners.topLeft
        topRight = corners.topRight
        bottomLeft = corners.bottomLeft
        bottomRight = corners.bottomRight
        self.subFeatures = subFeatures
        super.init(bounds: corners.bounds)
    }
}

/// Core Image's description of a QR code symbol (payload with error correction, version, mask
/// and level), as Vision and `CIQRCodeFeature.symbolDescriptor` give it. Cyanotype makes none
/// yet (zbar does not report them); the type exists so code that reads it compiles.
public final class CIQRCodeDescriptor: @unchecked Sendable {
    /// The level of error correction of a QR code symbol.
    public enum ErrorCorrectionLevel: Int, Sendable {
        /// 7 % of codewords can be restored.
        case levelL = 76
        /// 15 %.
        case levelM = 77
        /// 25 %.
        case levelQ = 81
        /// 30 %.
        case levelH = 72
    }
    /// The data codewords with their error correction codewords.
    public let errorCorrectedPayload: Data
    /// The symbol's version, 1...40.
    public let symbolVersion: Int
    /// The data mask pattern, 0...7.
    public let maskPattern: UInt8
    /// The level of error correction.
    public let errorCorrectionLevel: ErrorCorrectionLevel

    /// A descriptor of these values; nil when the version or mask is out of range.
    public init?(payload errorCorrectedPayload: Data, symbolVersion: Int, maskPattern: UInt8, errorCorrectionLevel: ErrorCorrectionLevel) {
        guard (1...40).contains(symbolVersion), maskPattern < 8 else { return nil }
        self.errorCorrectedPayload = errorCorrectedPayload
        self.symbolVersion = symbolVersion
        self.maskPattern = maskPattern
        self.errorCorrectionLevel = errorCorrectionLevel
    }
}

/// Four corners in image coordinates (origin bottom-left).
struct Quadrilateral: Sendable, Equatable {
    var topLeft: CGPoint
    var topRight: CGPoint
    var bottomLeft: CGPoint
    var bottomRight: CGPoint

    /// The smallest rectangle holding the corners.
    var bounds: CGRect {
        let xs = [topLeft.x, topRight.x, bottomLeft.x, bottomRight.x]
        let ys = [topLeft.y, topRight.y, bottomLeft.y, bottomRight.y]
        let minX = xs.min()!, minY = ys.min()!
        return CGRect(x: minX, y: minY, width: xs.max()! - minX, height: ys.max()! - minY)
    }

    /// The corners with each point mapped by `f`.
    func mapped(_ f: (CGPoint) -> CGPoint) -> Quadrilateral {
        Quadrilateral(topLeft: f(topLeft), topRight: f(topRight), bottomLeft: f(bottomLeft), bottomRight: f(bottomRight))
    }

    /// Four points in any order named by position: the two highest (largest y) are the top,
    /// left of each pair by x along the pair. For a picture upright in the image.
    init(unordered points: [CGPoint]) {
        let byY = points.sorted { $0.y > $1.y }
        let top = byY.prefix(2).sorted { $0.x < $1.x }
        let bottom = byY.suffix(2).sorted { $0.x < $1.x }
        topLeft = top[0]
        topRight = top[1]
        bottomLeft = bottom[0]
        bottomRight = bottom[1]
    }

    init(topLeft: CGPoint, topRight: CGPoint, bottomLeft: CGPoint, bottomRight: CGPoint) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomLeft = bottomLeft
        self.bottomRight = bottomRight
    }
}
