import Foundation

/// Image I/O's key for the DNG dictionary of a DNG file (`{DNG}`).
public let kCGImagePropertyDNGDictionary = "{DNG}"
/// `{DNG}`: the DNG version, as an array ([1, 4, 0, 0]).
public let kCGImagePropertyDNGVersion = "DNGVersion"
/// `{DNG}`: the BaselineExposure tag, in EV.
public let kCGImagePropertyDNGBaselineExposure = "BaselineExposure"
/// `{DNG}`: the camera's unique model name.
public let kCGImagePropertyDNGUniqueCameraModel = "UniqueCameraModel"

/// A version of the RAW decoder (Core Image's `CIRAWDecoderVersion`). Cyanotype has one:
/// LibRaw's, named by its version ("LibRaw 0.20.2").
public struct CIRAWDecoderVersion: RawRepresentable, Hashable, Sendable {
    /// The version's name.
    public let rawValue: String
    /// A version by name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// No particular version (Core Image's `.none`): the current one.
    public static let none = CIRAWDecoderVersion(rawValue: "None")
}

/// Core Image's RAW development filter, on LibRaw: a camera file (DNG, CR2, CR3, NEF, ARW,
/// RAF, ORF, RW2, PEF, SRW: whatever LibRaw 0.20 reads) developed into a scene-referred
/// image, then white balance, exposure, a linear-space filter and the tone curve ("boost")
/// in the engine.
///
/// `outputImage` is lazy: LibRaw develops the file when the image is first rendered, at half
/// size when draft mode is on or the render (or `scaleFactor`) asks for half the size or less.
/// With `boostAmount` 0 the result is the **neutral develop**: the file's white balance and
/// colour matrix into linear sRGB, highlights clipped to white, no tone curve, noise
/// reduction or sharpening: LibRaw's own output with the same settings (AHD).
///
/// Controls LibRaw 0.20 cannot honour keep their values and change nothing; their
/// `is…Supported` flags say so (`isDetailSupported`, `isMoireReductionSupported`,
/// `isLocalToneMapSupported`, `isLensCorrectionSupported`).
public final class CIRAWFilter: CIFilter {
    let file: RAWFile

    // MARK: Creating a filter

    /// A filter for the RAW file at `url`; nil when it is not a RAW file LibRaw reads (or
    /// LibRaw cannot be loaded). `CIRAWFilter.open(url:)` says why.
    public convenience init?(imageURL url: URL) {
        guard let file = try? RAWFile(.path(url.path), name: url.lastPathComponent) else { return nil }
        self.init(file: file)
    }

    /// A filter for RAW file bytes; `identifierHint` (a UTI such as "com.adobe.raw-image") is
    /// accepted and unused: the bytes say what they are. Nil when they are not a RAW file.
    public convenience init?(imageData data: Data, identifierHint: String?) {
        guard let file = try? RAWFile(.data(data), name: "data") else { return nil }
        self.init(file: file)
    }

    /// Cyanotype: the filter for the RAW file at `url`, or the reason there is none.
    public static func open(url: URL) throws(RAWError) -> CIRAWFilter {
        CIRAWFilter(file: try RAWFile(.path(url.path), name: url.lastPathComponent))
    }

    /// Cyanotype: the filter for RAW file bytes, or the reason there is none.
    public static func open(data: Data, name: String = "data") throws(RAWError) -> CIRAWFilter {
        CIRAWFilter(file: try RAWFile(.data(data), name: name))
    }

    init(file: RAWFile) {
        self.file = file
        baselineExposure = file.baselineExposure
        orientation = CGImagePropertyOrientation(rawValue: UInt32(file.exifOrientation)) ?? .up
        let (t, tint) = RAWWhiteBalance.temperatureAndTint(multipliers: file.asShotMultipliers, file: file) ?? (6500, 0)
        asShot = (Float(t), Float(tint))
        neutralTemperature = Float(t)
        neutralTint = Float(tint)
        super.init()
        name = "CIRAWFilter"
    }

    /// The camera models LibRaw can develop ("Canon EOS 5D Mark IV", ...).
    public class var supportedCameraModels: [String] { RAWFile.cameraModels }

    // MARK: The file

    /// The developed image's size, before orientation and scaling.
    public var nativeSize: CGSize { CGSize(width: file.width, height: file.height) }

    /// Image I/O's properties of the file: `{TIFF}` (make, model), `{Exif}` (ISO, exposure
    /// time, f-number, focal length, lens, date), `{DNG}` for DNGs, size and orientation.
    public var properties: [AnyHashable: Any] {
        var p: [AnyHashable: Any] = [:]
        for (k, v) in file.properties { p[k] = v }
        return p
    }

    /// The orientation applied to the output (the file's, by default).
    public var orientation: CGImagePropertyOrientation

    /// The preview the camera embedded (a JPEG), oriented as the output; nil when there is none.
    public var previewImage: CIImage? {
        guard let jpeg = file.previewJPEG(), let image = try? CIImage.read(data: jpeg, name: "\(file.name) preview") else { return nil }
        return image.oriented(orientation)
    }

    /// The decoder version in use; Cyanotype has LibRaw's only.
    public var decoderVersion: CIRAWDecoderVersion = .none
    /// The decoder versions available: LibRaw's.
    public var supportedDecoderVersions: [CIRAWDecoderVersion] {
        [CIRAWDecoderVersion(rawValue: "LibRaw \(RAWFile.libraryVersion ?? "unavailable")")]
    }

    // MARK: Controls (Core Image's names, ranges and defaults)

    /// Exposure in EV on the linear data (-10...10; default 0): +1 doubles the linear values.
    public var exposure: Float = 0
    /// The file's baseline exposure in EV (DNG BaselineExposure; 0 for other files), added to
    /// `exposure`.
    public var baselineExposure: Float
    /// The tone curve's strength (0...1; default 1). 0 is the neutral (linear) develop.
    public var boostAmount: Float = 1
    /// Shadow lift of the tone curve (0...2; default 1; no effect when `boostAmount` is 0).
    public var boostShadowAmount: Float = 1
    /// Subtracted from the linear values before the curve (0...0.1, default 0), as a black
    /// level offset.
    public var shadowBias: Float = 0
    /// The white balance's colour temperature in kelvin (2000...50000); the file's as-shot
    /// white balance by default. Changing it (or `neutralTint`) develops with multipliers from
    /// the camera's colour matrix.
    public var neutralTemperature: Float
    /// The white balance's tint (-150...150; positive is magenta); the file's by default.
    public var neutralTint: Float
    /// The white point as a CIE xy chromaticity; setting it sets temperature and tint.
    public var neutralChromaticity: CGPoint {
        get {
            let (x, y) = RAWWhiteBalance.xy(temperature: Double(neutralTemperature), tint: Double(neutralTint))
            return CGPoint(x: x, y: y)
        }
        set {
            let (t, tint) = RAWWhiteBalance.temperatureAndTint(x: Double(newValue.x), y: Double(newValue.y))
            neutralTemperature = Float(t)
            neutralTint = Float(tint)
        }
    }
    /// A point (in the output image's coordinates, before `scaleFactor`) that should be
    /// neutral grey: setting it measures the developed image there and sets temperature and
    /// tint to make it grey. (-1, -1) when unset.
    public var neutralLocation: CGPoint = CGPoint(x: -1, y: -1) {
        didSet { neutralize(at: neutralLocation) }
    }
    /// Luminance noise reduction (0...1; default 0): LibRaw's wavelet denoising.
    public var luminanceNoiseReductionAmount: Float = 0
    /// Colour noise reduction (0...1; default 0): LibRaw's median passes on colour differences.
    public var colorNoiseReductionAmount: Float = 0
    /// Sharpening (0...1; default 0), on luminance after the tone curve.
    public var sharpnessAmount: Float = 0
    /// Contrast (-1...1; default 0) after the tone curve.
    public var contrastAmount: Float = 0
    /// Core Image's detail control (0...3); LibRaw has none (`isDetailSupported` is false).
    public var detailAmount: Float = 0
    /// Core Image's moiré reduction (0...1); LibRaw has none.
    public var moireReductionAmount: Float = 0
    /// Core Image's local tone mapping (0...1); not done here.
    public var localToneMapAmount: Float = 0
    /// Core Image's extended dynamic range headroom (0...2); the output is SDR here.
    public var extendedDynamicRangeAmount: Float = 0
    /// Whether colours outside sRGB are brought into it (clipped) before the tone curve
    /// (default true).
    public var isGamutMappingEnabled = true
    /// Core Image's lens correction; LibRaw 0.20 corrects no lenses (`isLensCorrectionSupported`).
    public var isLensCorrectionEnabled = false
    /// Develops at half size (no demosaicking: each 2x2 block of the sensor gives one pixel),
    /// scaled back up to the full extent: at least twice as fast.
    public var isDraftModeEnabled = false
    /// The scale the output is drawn at (0...1; default 1): the output's extent is scaled by
    /// it, and 0.5 or less develops at half size.
    public var scaleFactor: Float = 1
    /// A filter applied to the linear, scene-referred image (after exposure and white
    /// balance, before the tone curve); its `inputImage` is set for you.
    public var linearSpaceFilter: CIFilter?

    // MARK: What the file supports

    /// Luminance noise reduction works (LibRaw's wavelet denoise) on every file.
    public var isLuminanceNoiseReductionSupported: Bool { true }
    /// Colour noise reduction works on mosaic (Bayer) files.
    public var isColorNoiseReductionSupported: Bool { file.info.filters != 0 }
    /// Sharpening works on every file.
    public var isSharpnessSupported: Bool { true }
    /// Contrast works on every file.
    public var isContrastSupported: Bool { true }
    /// False: LibRaw has no detail control.
    public var isDetailSupported: Bool { false }
    /// False: LibRaw 0.20 has no moiré reduction.
    public var isMoireReductionSupported: Bool { false }
    /// False: no local tone mapping.
    public var isLocalToneMapSupported: Bool { false }
    /// False: LibRaw 0.20 has no lens profiles.
    public var isLensCorrectionSupported: Bool { false }
    /// Whether the white balance can be set by temperature and tint (the file has a colour
    /// matrix for its 3-colour sensor).
    var isTemperatureSupported: Bool { file.hasColorMatrix }

    // MARK: Output

    /// The temperature and tint of the file's as-shot white balance.
    let asShot: (temperature: Float, tint: Float)
    /// Gains (linear sRGB) that `neutralLocation` found on top of the white balance.
    var neutralGains = SIMD3<Float>(1, 1, 1)
    /// LibRaw's grey-world white balance in place of the as-shot one (`--raw-wb auto`).
    var automaticWhiteBalance = false

    /// LibRaw's settings for the controls as they are now.
    func developSettings(halfSize: Bool) -> RAWDevelopSettings {
        var s = RAWDevelopSettings()
        s.halfSize = halfSize
        if abs(neutralTemperature - asShot.temperature) > 0.5 || abs(neutralTint - asShot.tint) > 0.05, file.hasColorMatrix {
            s.multipliers = RAWWhiteBalance.multipliers(temperature: Double(neutralTemperature), tint: Double(neutralTint), file: file)
        }
        s.automaticWhiteBalance = automaticWhiteBalance && s.multipliers == nil
        s.denoiseThreshold = max(0, min(1, luminanceNoiseReductionAmount)) * 500
        s.medianPasses = Int32((max(0, min(1, colorNoiseReductionAmount)) * 3).rounded())
        return s
    }

    /// The developed image with every control applied, lazily: LibRaw runs when it is rendered.
    public override var outputImage: CIImage? {
        let scale = max(0.01, min(1, scaleFactor))
        let half = isDraftModeEnabled || scale <= 0.5
        let gain = pow(2, exposure + baselineExposure)
        // Without a linear-space filter, the colour stages run inside the develop (one table
        // per channel), so a downscale reaches the source and gets the half-size develop.
        let finish =
            linearSpaceFilter == nil
            ? RAWFinish(
                gain: gain, gains: neutralGains, shadowBias: shadowBias, clip: isGamutMappingEnabled, boost: boostAmount,
                shadows: boostShadowAmount) : nil
        var full = developSettings(halfSize: false), halfSize = developSettings(halfSize: true)
        full.finish = finish
        halfSize.finish = finish
        let source = RAWDevelopment.source(file: file, settings: full, halfSettings: halfSize)
        var image = CIImage(node: half ? source.half : source.full)
        if half, let full = image.extent.width > 0 ? CGFloat(file.width) / image.extent.width : nil {
            image = image.transformed(by: CGAffineTransform(scaleX: full, y: CGFloat(file.height) / image.extent.height))
        }
        if finish == nil {
            image = RAWDevelopment.linearStage(image, gain: gain, gains: neutralGains, shadowBias: shadowBias, clip: isGamutMappingEnabled)
            if let f = linearSpaceFilter {
                f.setValue(image, forKey: kCIInputImageKey)
                if let filtered = f.outputImage { image = filtered }
            }
            if boostAmount > 0 {
                image = RAWDevelopment.toneCurve(image, boost: min(1, boostAmount), shadows: max(0, min(2, boostShadowAmount)))
            }
        }
        if contrastAmount != 0 {
            image = image.applyingFilter("CIColorControls", parameters: [kCIInputContrastKey: 1 + Double(max(-1, min(1, contrastAmount))) * 0.5])
        }
        if sharpnessAmount > 0 {
            image = image.applyingFilter("CISharpenLuminance", parameters: [kCIInputSharpnessKey: Double(min(1, sharpnessAmount)), kCIInputRadiusKey: 1.5])
        }
        image = image.oriented(orientation)
        if scale < 1 {
            image = image.transformed(by: CGAffineTransform(scaleX: CGFloat(scale), y: CGFloat(scale)), highQualityDownsample: true)
        }
        return CIImage(node: image.node, properties: file.properties)
    }

    /// Measures the neutral develop around `point` (output coordinates) and sets the gains
    /// that make it grey.
    private func neutralize(at point: CGPoint) {
        guard point.x >= 0, point.y >= 0 else { neutralGains = SIMD3(1, 1, 1); return }
        let source = RAWDevelopment.source(file: file, settings: developSettings(halfSize: true), halfSettings: developSettings(halfSize: true))
        let base = CIImage(node: source.half).oriented(orientation)
        let sx = base.extent.width / max(1, CGFloat(orientation.rawValue >= 5 ? file.height : file.width))
        let sy = base.extent.height / max(1, CGFloat(orientation.rawValue >= 5 ? file.width : file.height))
        let rect = CGRect(x: point.x * sx - 2, y: point.y * sy - 2, width: 5, height: 5).intersection(base.extent)
        guard !rect.isEmpty else { return }
        var pixels = [Float](repeating: 0, count: Int(rect.width) * Int(rect.height) * 4)
        pixels.withUnsafeMutableBytes { p in
            CIContext().render(
                base, toBitmap: p.baseAddress!, rowBytes: Int(rect.width) * 16, bounds: rect, format: .RGBAf,
                colorSpace: .extendedLinearSRGBSpace)
        }
        var sum = SIMD3<Float>(0, 0, 0)
        for i in stride(from: 0, to: pixels.count, by: 4) { sum += SIMD3(pixels[i], pixels[i + 1], pixels[i + 2]) }
        guard sum.x > 0, sum.y > 0, sum.z > 0 else { return }
        neutralGains = SIMD3(sum.y / sum.x, 1, sum.y / sum.z)
    }
}

extension RAWError {
    /// The error as the file API reports it.
    var fileError: ImageFileError {
        switch self {
        case .libraryUnavailable(let m): return .libraryUnavailable(m)
        case .notRAW(let m): return .unsupportedFormat(m)
        case .developFailed(let m): return .corrupt(detail: m)
        }
    }
}

extension CIImage {
    /// A RAW file's image: `CIRAWFilter`'s output with its defaults, as Core Image gives for
    /// `CIImage(contentsOf:)`; the orientation is applied only when the options ask (as for
    /// other files), else it stays in the properties.
    static func rawImage(_ data: Data, options o: [CIImageOption: Any], name: String) throws(ImageIOError) -> CIImage {
        let filter: CIRAWFilter
        do { filter = try CIRAWFilter.open(data: data, name: name) } catch { throw .codec(path: nil, error.fileError) }
        (o[.rawDevelopment] as? RAWDevelopOptions)?.apply(to: filter)
        var props = filter.file.properties
        if !((o[.applyOrientationProperty] as? Bool) ?? false) {
            filter.orientation = .up
        } else {
            props[kCGImagePropertyOrientation] = 1
        }
        guard let image = filter.outputImage else { throw .codec(path: nil, .corrupt(detail: "the RAW file gave no image")) }
        return CIImage(node: image.node, properties: (o[.properties] as? [String: Any]) ?? props)
    }
}

/// Cyanotype: how `CIImage(contentsOf:)` and `CIImage.read` develop a RAW file (the value of
/// `CIImageOption.rawDevelopment`); the defaults are `CIRAWFilter`'s, as on Apple's platforms.
public struct RAWDevelopOptions: Sendable, Hashable {
    /// The white balance to develop with.
    public enum WhiteBalance: Sendable, Hashable {
        /// The camera's as-shot white balance (the default).
        case camera
        /// LibRaw's automatic (grey-world) white balance.
        case automatic
        /// A colour temperature in kelvin and a tint (positive: a greener light, so a more
        /// magenta picture).
        case temperature(Float, tint: Float)
    }
    /// Exposure in EV on the linear data (`CIRAWFilter.exposure`).
    public var exposure: Float
    /// The white balance.
    public var whiteBalance: WhiteBalance
    /// The tone curve's strength, 0...1 (`CIRAWFilter.boostAmount`; 0 is the neutral develop).
    public var boostAmount: Float
    /// Half-size development (`CIRAWFilter.isDraftModeEnabled`).
    public var draft: Bool

    /// Options; the defaults are Core Image's.
    public init(exposure: Float = 0, whiteBalance: WhiteBalance = .camera, boostAmount: Float = 1, draft: Bool = false) {
        self.exposure = exposure
        self.whiteBalance = whiteBalance
        self.boostAmount = boostAmount
        self.draft = draft
    }

    /// Sets `filter`'s controls to these options.
    public func apply(to filter: CIRAWFilter) {
        filter.exposure = exposure
        filter.boostAmount = boostAmount
        filter.isDraftModeEnabled = draft
        switch whiteBalance {
        case .camera: break
        case .automatic: filter.automaticWhiteBalance = true
        case .temperature(let t, let tint):
            filter.neutralTemperature = t
            filter.neutralTint = tint
        }
    }
}

extension CIImageOption {
    /// Cyanotype: how a RAW file is developed when read as an image (a `RAWDevelopOptions`).
    public static let rawDevelopment = CIImageOption(rawValue: "cyanotype_raw_development")
}

extension CIRAWFilter {
    /// Cyanotype: whether `data` is a RAW camera file, by its bytes (DNGVersion tag, CR2
    /// marker, a camera maker's TIFF with sub-directories, CR3/RAF/ORF/RW2/CRW/MRW/X3F magic).
    /// An ordinary TIFF is not.
    public static func isRAWFile(_ data: Data) -> Bool { RAWFile.isRAW(data) }
}
