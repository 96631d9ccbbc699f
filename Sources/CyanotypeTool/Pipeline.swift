import Cyanotype
import Foundation
import Instafilter

/// What happens to one image, in order: crop, rotate, flip, flop; the filters; the LUT; the
/// preset; then resizing (--resize/--thumbnail, then the --max-size cap).
package struct Pipeline: @unchecked Sendable {
    package var geometry = GeometryOptions()
    package var filters: [ResolvedFilter] = []
    /// A 3D LUT (`--lut`), read once, applied after the filters and before the preset.
    package var lut: LUT? = nil
    package var interpolation: LUTInterpolation = .tetrahedral
    /// The LUT's strength, 0...1 (`--intensity` when there is no preset).
    package var lutIntensity: Float = 1
    /// A named look (Instafilter), applied after the filters, at its intensity.
    package var preset: BaseFilter? = nil

    package init() {}

    /// Whether the result may have clear parts where an opaque input had none (a rotation by
    /// an odd angle, a filter): an opaque input is then flattened onto the background.
    package var uncovers: Bool { geometry.uncoversPixels || !filters.isEmpty || preset != nil || geometry.edges == .transparent }

    package func run(on input: CIImage) throws(CLIError) -> CIImage {
        var image = try geometry.applyBeforeFilters(input)
        for f in filters { image = try apply(f, to: image) }
        if let lut { image = image.applyingLUT(lut, interpolation: interpolation, intensity: lutIntensity) }
        if let preset { image = preset.apply(to: image) }
        return try geometry.applyAfterFilters(image)
    }

    /// One filter, as the tool runs it (the library keeps Core Image's semantics): a filter
    /// that reads past the edges sees the `--edges` extension of the picture, so borders stay
    /// solid; a filter that is not a geometry adjustment keeps the picture's extent (a blur does
    /// not grow it).
    package func apply(_ f: ResolvedFilter, to image: CIImage) throws(CLIError) -> CIImage {
        let before = image.extent
        let natural = try f.apply(to: image)
        guard f.takesImage, f.values[kCIInputImageKey] == nil, !before.isInfinite, !before.isEmpty else { return natural }
        let edges = geometry.edges
        if f.descriptor.categories.contains(kCICategoryGeometryAdjustment) {
            // Resampling that keeps the picture a rectangle reads the extension at its edges;
            // one that turns or bends it (a rotation, a perspective) leaves its corners clear.
            guard edges != .transparent, f.keepsRectangle, !natural.extent.isInfinite, !natural.extent.isEmpty else { return natural }
            return try f.apply(to: edges.extend(image)).cropped(to: natural.extent)
        }
        guard natural.extent.isInfinite || natural.extent.contains(before) else { return natural }
        var out = natural
        if edges != .transparent && (f.readsPastEdges || natural.extent != before) {
            let extended = try f.apply(to: edges.extend(image))
            if extended.extent.isInfinite || extended.extent.contains(before) { out = extended }
        }
        return out.cropped(to: before)
    }
}

extension ResolvedFilter {
    /// Neighbourhood filters: blurs, sharpening, stylize and distortion effects.
    package var readsPastEdges: Bool {
        let c = descriptor.categories
        return c.contains(kCICategoryBlur) || c.contains(kCICategorySharpen) || c.contains(kCICategoryStylize)
            || c.contains(kCICategoryDistortionEffect)
    }

    /// Geometry filters whose output is an upright rectangle (scaling, cropping, straightening).
    package var keepsRectangle: Bool {
        switch descriptor.name {
        case "CILanczosScaleTransform", "CIBicubicScaleTransform", "CICrop", "CIStraightenFilter", "CIPerspectiveCorrection":
            return true
        case "CIAffineTransform":
            guard let t = values[kCIInputTransformKey] as? CGAffineTransform else { return true }
            return (t.b == 0 && t.c == 0) || (t.a == 0 && t.d == 0)
        default:
            return false
        }
    }
}
