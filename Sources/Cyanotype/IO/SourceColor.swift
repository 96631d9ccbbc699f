internal import CCodecShims
internal import CyanotypeCodecs
import Foundation

/// How a decoded file's 8/16-bit rows reach the working space, from its embedded profile:
/// a profile that describes a space the engine names (sRGB, Display P3, Adobe RGB, the linear
/// ones) reads through that space's tables and matrix, tile by tile, like any bitmap in it (and
/// is written back in the same space without a conversion); another RGB profile reads through
/// an lcms2 transform per row, tile by tile. Neither makes a float copy of the picture.
struct SourceColor: Sendable {
    /// The space the bitmap's values are in (the file's named space, the fallback for an
    /// untagged file, or a space of its own for a profile read through `transform`).
    let space: CGColorSpace?
    /// The per-row conversion for a profile the engine has no name for.
    let transform: ColorProfiles.RowTransform?

    /// The colour of rows of `bitsPerSample` bits tagged with `profile` (nil: untagged, read in
    /// `fallback`). `fallback` nil means no colour management: the profile is not applied. A
    /// profile lcms2 cannot use on RGB (grey, CMYK, damaged) is ignored, as before.
    static func of(profile: Data?, bitsPerSample: Int, fallback: CGColorSpace?) -> SourceColor {
        guard let profile, fallback != nil, bitsPerSample == 8 || bitsPerSample == 16 else {
            return SourceColor(space: fallback, transform: nil)
        }
        if ColorProfiles.isSRGB(profile) { return SourceColor(space: fallback, transform: nil) }
        if let named = ColorProfiles.namedSpace(of: profile) { return SourceColor(space: CGColorSpace.named(named), transform: nil) }
        guard let t = RowTransforms.shared.transform(for: profile, bitsPerSample: bitsPerSample) else {
            return SourceColor(space: fallback, transform: nil)
        }
        let name = "ICC profile \"\(ColorProfiles.description(of: profile) ?? "unnamed")\""
        return SourceColor(space: CGColorSpace(name: name, transfer: .linear), transform: t)
    }
}

extension CGColorSpace {
    /// The engine's space for a profile's named space.
    static func named(_ n: ColorProfiles.NamedSpace) -> CGColorSpace {
        let name: CFString =
            switch n {
            case .sRGB: CGColorSpace.sRGB
            case .displayP3: CGColorSpace.displayP3
            case .adobeRGB: CGColorSpace.adobeRGB1998
            case .linearSRGB: CGColorSpace.linearSRGB
            case .linearDisplayP3: CGColorSpace.linearDisplayP3
            case .linearBT2020: CGColorSpace.linearITUR_2020
            }
        return CGColorSpace(name: name) ?? .sRGBSpace
    }
}

/// The lcms2 row transforms made so far, one per profile and sample size: files sharing a
/// profile (a camera's batch) build it once.
final class RowTransforms: @unchecked Sendable {
    /// The process's transforms.
    static let shared = RowTransforms()
    private let lock = NSLock()
    private var made: [Key: ColorProfiles.RowTransform] = [:]
    private struct Key: Hashable {
        let profile: Data
        let bits: Int
    }

    /// The transform for `profile` at `bitsPerSample`, made on first use; nil when lcms2
    /// cannot make one.
    func transform(for profile: Data, bitsPerSample: Int) -> ColorProfiles.RowTransform? {
        let key = Key(profile: profile, bits: bitsPerSample)
        lock.lock()
        if let t = made[key] { lock.unlock(); return t }
        lock.unlock()
        guard let t = ColorProfiles.RowTransform(profile: profile, bitsPerSample: bitsPerSample) else { return nil }
        lock.lock(); defer { lock.unlock() }
        // A handful of profiles per process; more than 16 distinct ones start the cache afresh.
        if made.count >= 16 { made.removeAll() }
        made[key] = t
        return t
    }
}

/// An EXIF orientation (1...8) applied to the rows of a `width` x `height` picture (rows from
/// the top) as they are decoded: each source pixel is stored where the upright picture has it,
/// so no float copy or resampling pass is made.
struct RowOrientation: Sendable {
    /// The EXIF value, 1...8 (anything else is 1).
    let value: Int
    /// The source picture's size.
    let width: Int, height: Int

    init(_ value: Int, width: Int, height: Int) {
        self.value = (1...8).contains(value) ? value : 1
        self.width = width
        self.height = height
    }

    /// Whether the upright picture is the source turned a quarter (sides swapped).
    var swapsSides: Bool { value >= 5 }
    /// The upright picture's width.
    var uprightWidth: Int { swapsSides ? height : width }
    /// The upright picture's height.
    var uprightHeight: Int { swapsSides ? width : height }
    /// Whether upright row `k` holds only source row `k` (1 and 2): rows are complete as the
    /// source rows arrive.
    var keepsRowOrder: Bool { value <= 2 }

    /// Stores `count` source rows from source row `first` (at `source`, `sourceRowBytes`
    /// apart) into the upright picture at `destination` (`destinationRowBytes` apart),
    /// `bytesPerPixel` (4 or 8) a pixel: `cy_orient_band`, the routine that turns JPEG planes'
    /// bands too (SSE2 4x4 transposes of RGBA8 pixels for the quarter turns).
    func scatter(
        _ source: UnsafeRawPointer, sourceRowBytes: Int, first: Int, count: Int, into destination: UnsafeMutableRawPointer,
        destinationRowBytes: Int, bytesPerPixel: Int
    ) {
        cy_orient_band(
            source, sourceRowBytes, Int32(first), Int32(count), Int32(width), Int32(height), Int32(value), Int32(bytesPerPixel), destination,
            destinationRowBytes)
    }
}
