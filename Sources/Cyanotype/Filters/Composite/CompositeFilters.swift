// The Core Image composite operations: Porter-Duff compositing, component-wise
// compositing and the W3C / Photoshop blend modes, one family. The maths lives in
// `BlendStage`; the family's table picks each filter's mode and output extent.

extension BuiltinFilters {
    /// The composite operations and blend modes. Blend modes (`CI*BlendMode`) composite with
    /// the W3C general formula on premultiplied colour,
    /// `co = cs(1 - ab) + cb(1 - as) + as*ab*B(Cb, Cs)`, `ao = as + ab - as*ab`, where `B` is the
    /// mode's function of the straight backdrop `Cb` and source `Cs`; their extent is the union
    /// of both extents (Apple: "the union of the foreground and background extents").
    /// Non-separable modes use the W3C `Lum` weights (0.3, 0.59, 0.11).
    ///
    /// - inputImage: The source (foreground) image.
    /// - inputBackgroundImage: The backdrop the source is composited over.
    static let composites = BuiltinFilter.family([
        /// CISourceOverCompositing: the image over the background (Porter-Duff source-over). Extent: the union of both extents.
        (Catalog.CISourceOverCompositing, Compositing(mode: .sourceOver, extent: .union)),
        /// CIAdditionCompositing: adds the premultiplied colours, `co = cs + cb` (not clamped, so HDR values survive), alpha `min(1, as + ab)`. Extent: the union of both extents.
        (Catalog.CIAdditionCompositing, Compositing(mode: .addition, extent: .union)),
        /// CIMaximumCompositing: the component-wise maximum of the premultiplied pixels, alpha included. Extent: the union of both extents.
        (Catalog.CIMaximumCompositing, Compositing(mode: .maximum, extent: .union)),
        /// CIMinimumCompositing: the component-wise minimum of the premultiplied pixels, alpha included. Extent: the union of both extents.
        (Catalog.CIMinimumCompositing, Compositing(mode: .minimum, extent: .union)),
        /// CIMultiplyCompositing: multiplies the premultiplied pixels component-wise, alpha included: `o = s * b`. Extent: the union of both extents.
        (Catalog.CIMultiplyCompositing, Compositing(mode: .multiplyCompositing, extent: .union)),
        /// CISourceAtopCompositing: Porter-Duff source-atop, `co = cs*ab + cb*(1 - as)`, `ao = ab`. Extent: the background's, since nothing shows outside it.
        (Catalog.CISourceAtopCompositing, Compositing(mode: .sourceAtop, extent: .background)),
        /// CISourceInCompositing: Porter-Duff source-in, `o = s * ab`. Extent: the intersection of both extents (clear everywhere else).
        (Catalog.CISourceInCompositing, Compositing(mode: .sourceIn, extent: .intersection)),
        /// CISourceOutCompositing: Porter-Duff source-out, `o = s * (1 - ab)`. Extent: the input image's (clear outside it).
        (Catalog.CISourceOutCompositing, Compositing(mode: .sourceOut, extent: .image)),
        /// CIMultiplyBlendMode: W3C multiply, `B = Cb * Cs`, with source-over alpha.
        (Catalog.CIMultiplyBlendMode, Compositing(mode: .multiply, extent: .union)),
        /// CIScreenBlendMode: W3C screen, `B = Cb + Cs - Cb*Cs`.
        (Catalog.CIScreenBlendMode, Compositing(mode: .screen, extent: .union)),
        /// CIOverlayBlendMode: W3C overlay, hard-light with the arguments swapped: `B = HardLight(Cs, Cb)`.
        (Catalog.CIOverlayBlendMode, Compositing(mode: .overlay, extent: .union)),
        /// CIDarkenBlendMode: W3C darken, `B = min(Cb, Cs)`.
        (Catalog.CIDarkenBlendMode, Compositing(mode: .darken, extent: .union)),
        /// CILightenBlendMode: W3C lighten, `B = max(Cb, Cs)`.
        (Catalog.CILightenBlendMode, Compositing(mode: .lighten, extent: .union)),
        /// CIColorDodgeBlendMode: W3C color-dodge: `B = 0` if `Cb = 0`, 1 if `Cs = 1`, else `min(1, Cb / (1 - Cs))`.
        (Catalog.CIColorDodgeBlendMode, Compositing(mode: .colorDodge, extent: .union)),
        /// CIColorBurnBlendMode: W3C color-burn: `B = 1` if `Cb >= 1`, 0 if `Cs = 0`, else `1 - min(1, (1 - Cb) / Cs)`.
        (Catalog.CIColorBurnBlendMode, Compositing(mode: .colorBurn, extent: .union)),
        /// CIHardLightBlendMode: W3C hard-light: multiply by `2Cs` when `Cs <= 0.5`, else screen with `2Cs - 1`.
        (Catalog.CIHardLightBlendMode, Compositing(mode: .hardLight, extent: .union)),
        /// CISoftLightBlendMode: W3C soft-light (the PDF / W3C formula with `D(Cb)`, not Photoshop's).
        (Catalog.CISoftLightBlendMode, Compositing(mode: .softLight, extent: .union)),
        /// CIDifferenceBlendMode: W3C difference, `B = |Cb - Cs|`.
        (Catalog.CIDifferenceBlendMode, Compositing(mode: .difference, extent: .union)),
        /// CIExclusionBlendMode: W3C exclusion, `B = Cb + Cs - 2 Cb Cs`.
        (Catalog.CIExclusionBlendMode, Compositing(mode: .exclusion, extent: .union)),
        /// CILinearBurnBlendMode: Photoshop linear burn, `B = max(0, Cb + Cs - 1)`.
        (Catalog.CILinearBurnBlendMode, Compositing(mode: .linearBurn, extent: .union)),
        /// CILinearDodgeBlendMode: Photoshop linear dodge, `B = min(1, Cb + Cs)`.
        (Catalog.CILinearDodgeBlendMode, Compositing(mode: .linearDodge, extent: .union)),
        /// CILinearLightBlendMode: Photoshop linear light (linear burn below half, linear dodge above), `B = clamp(Cb + 2Cs - 1, 0, 1)`.
        (Catalog.CILinearLightBlendMode, Compositing(mode: .linearLight, extent: .union)),
        /// CIVividLightBlendMode: Photoshop vivid light: W3C colour burn with `2Cs` when `Cs <= 0.5`, colour dodge with `2Cs - 1` above.
        (Catalog.CIVividLightBlendMode, Compositing(mode: .vividLight, extent: .union)),
        /// CIPinLightBlendMode: Photoshop pin light: `min(Cb, 2Cs)` when `Cs <= 0.5`, else `max(Cb, 2Cs - 1)`.
        (Catalog.CIPinLightBlendMode, Compositing(mode: .pinLight, extent: .union)),
        /// CISubtractBlendMode: Photoshop subtract, the backdrop minus the source: `B = max(0, Cb - Cs)`.
        (Catalog.CISubtractBlendMode, Compositing(mode: .subtract, extent: .union)),
        /// CIDivideBlendMode: Photoshop divide, the backdrop over the source: `B = min(1, Cb / Cs)`; `Cs = 0` gives 1 (0 where `Cb = 0`).
        (Catalog.CIDivideBlendMode, Compositing(mode: .divide, extent: .union)),
        /// CIHueBlendMode: W3C hue, `B = SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))`.
        (Catalog.CIHueBlendMode, Compositing(mode: .hue, extent: .union)),
        /// CISaturationBlendMode: W3C saturation, `B = SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))`.
        (Catalog.CISaturationBlendMode, Compositing(mode: .saturation, extent: .union)),
        /// CIColorBlendMode: W3C color, `B = SetLum(Cs, Lum(Cb))`: the source's hue and saturation with the backdrop's luminosity.
        (Catalog.CIColorBlendMode, Compositing(mode: .color, extent: .union)),
        /// CILuminosityBlendMode: W3C luminosity, `B = SetLum(Cb, Lum(Cs))`.
        (Catalog.CILuminosityBlendMode, Compositing(mode: .luminosity, extent: .union)),
    ]) { args, compositing throws(CIFilterError) in
        try composite(args, compositing.mode, extent: compositing.extent)
    }
}

/// What sets a composite filter apart: its blend mode and the rectangle it covers.
struct Compositing: Sendable {
    let mode: BlendStage.Mode
    let extent: CompositeExtent
}

/// Which rectangle a composite covers.
enum CompositeExtent: Sendable { case union, intersection, image, background }

/// Reads `inputImage` and `inputBackgroundImage` and applies the blend stage for `mode`.
private func composite(_ args: FilterArguments, _ mode: BlendStage.Mode, extent: CompositeExtent) throws(CIFilterError) -> CIImage {
    let image = try args.image(), background = try args.image(kCIInputBackgroundImageKey)
    let e: CGRect
    switch extent {
    case .union: e = image.extent.union(background.extent)
    case .intersection: e = image.extent.intersection(background.extent)
    case .image: e = image.extent
    case .background: e = background.extent
    }
    return image.applying(BlendStage(mode: mode), extras: [background], extent: e)
}

// Core Image's built-in blend kernels, for `CIBlendKernel.<mode>.apply(foreground:background:)`
// (whose extent is always the union, as Apple documents for blend kernels).
extension CIBlendKernel {
    /// CIAdditionCompositing's kernel: adds the premultiplied colours, `co = cs + cb` (not clamped, so HDR values survive), alpha `min(1, as + ab)`.
    public static let componentAdd = CIBlendKernel(stage: BlendStage(mode: .addition))
    /// CIMaximumCompositing's kernel: the component-wise maximum of the premultiplied pixels, alpha included.
    public static let componentMax = CIBlendKernel(stage: BlendStage(mode: .maximum))
    /// CIMinimumCompositing's kernel: the component-wise minimum of the premultiplied pixels, alpha included.
    public static let componentMin = CIBlendKernel(stage: BlendStage(mode: .minimum))
    /// CIMultiplyCompositing's kernel: multiplies the premultiplied pixels component-wise, alpha included: `o = s * b`.
    public static let componentMultiply = CIBlendKernel(stage: BlendStage(mode: .multiplyCompositing))
    /// CISourceAtopCompositing's kernel: Porter-Duff source-atop, `co = cs*ab + cb*(1 - as)`, `ao = ab`.
    public static let sourceAtop = CIBlendKernel(stage: BlendStage(mode: .sourceAtop))
    /// CISourceInCompositing's kernel: Porter-Duff source-in, `o = s * ab`.
    public static let sourceIn = CIBlendKernel(stage: BlendStage(mode: .sourceIn))
    /// CISourceOutCompositing's kernel: Porter-Duff source-out, `o = s * (1 - ab)`.
    public static let sourceOut = CIBlendKernel(stage: BlendStage(mode: .sourceOut))
    /// CIScreenBlendMode's kernel: W3C screen, `B = Cb + Cs - Cb*Cs`.
    public static let screen = CIBlendKernel(stage: BlendStage(mode: .screen))
    /// CIOverlayBlendMode's kernel: W3C overlay, hard-light with the arguments swapped: `B = HardLight(Cs, Cb)`.
    public static let overlay = CIBlendKernel(stage: BlendStage(mode: .overlay))
    /// CIDarkenBlendMode's kernel: W3C darken, `B = min(Cb, Cs)`.
    public static let darken = CIBlendKernel(stage: BlendStage(mode: .darken))
    /// CILightenBlendMode's kernel: W3C lighten, `B = max(Cb, Cs)`.
    public static let lighten = CIBlendKernel(stage: BlendStage(mode: .lighten))
    /// CIColorDodgeBlendMode's kernel: W3C color-dodge: `B = 0` if `Cb = 0`, 1 if `Cs = 1`, else `min(1, Cb / (1 - Cs))`.
    public static let colorDodge = CIBlendKernel(stage: BlendStage(mode: .colorDodge))
    /// CIColorBurnBlendMode's kernel: W3C color-burn: `B = 1` if `Cb >= 1`, 0 if `Cs = 0`, else `1 - min(1, (1 - Cb) / Cs)`.
    public static let colorBurn = CIBlendKernel(stage: BlendStage(mode: .colorBurn))
    /// CIHardLightBlendMode's kernel: W3C hard-light: multiply by `2Cs` when `Cs <= 0.5`, else screen with `2Cs - 1`.
    public static let hardLight = CIBlendKernel(stage: BlendStage(mode: .hardLight))
    /// CISoftLightBlendMode's kernel: W3C soft-light (the PDF / W3C formula with `D(Cb)`, not Photoshop's).
    public static let softLight = CIBlendKernel(stage: BlendStage(mode: .softLight))
    /// CIDifferenceBlendMode's kernel: W3C difference, `B = |Cb - Cs|`.
    public static let difference = CIBlendKernel(stage: BlendStage(mode: .difference))
    /// CIExclusionBlendMode's kernel: W3C exclusion, `B = Cb + Cs - 2 Cb Cs`.
    public static let exclusion = CIBlendKernel(stage: BlendStage(mode: .exclusion))
    /// CILinearBurnBlendMode's kernel: Photoshop linear burn, `B = max(0, Cb + Cs - 1)`.
    public static let linearBurn = CIBlendKernel(stage: BlendStage(mode: .linearBurn))
    /// CILinearDodgeBlendMode's kernel: Photoshop linear dodge, `B = min(1, Cb + Cs)`.
    public static let linearDodge = CIBlendKernel(stage: BlendStage(mode: .linearDodge))
    /// CILinearLightBlendMode's kernel: Photoshop linear light (linear burn below half, linear dodge above), `B = clamp(Cb + 2Cs - 1, 0, 1)`.
    public static let linearLight = CIBlendKernel(stage: BlendStage(mode: .linearLight))
    /// CIVividLightBlendMode's kernel: Photoshop vivid light: W3C colour burn with `2Cs` when `Cs <= 0.5`, colour dodge with `2Cs - 1` above.
    public static let vividLight = CIBlendKernel(stage: BlendStage(mode: .vividLight))
    /// CIPinLightBlendMode's kernel: Photoshop pin light: `min(Cb, 2Cs)` when `Cs <= 0.5`, else `max(Cb, 2Cs - 1)`.
    public static let pinLight = CIBlendKernel(stage: BlendStage(mode: .pinLight))
    /// Subtracts the background from the foreground, as Apple documents this kernel: `B = max(0, Cs - Cb)`
    /// (CISubtractBlendMode, like Photoshop, subtracts the other way: the backdrop minus the source).
    public static let subtract = CIBlendKernel(stage: BlendStage(mode: .subtractBackground))
    /// CIDivideBlendMode's kernel: Photoshop divide, the backdrop over the source: `B = min(1, Cb / Cs)`; `Cs = 0` gives 1 (0 where `Cb = 0`).
    public static let divide = CIBlendKernel(stage: BlendStage(mode: .divide))
    /// CIHueBlendMode's kernel: W3C hue, `B = SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))`.
    public static let hue = CIBlendKernel(stage: BlendStage(mode: .hue))
    /// CISaturationBlendMode's kernel: W3C saturation, `B = SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))`.
    public static let saturation = CIBlendKernel(stage: BlendStage(mode: .saturation))
    /// CIColorBlendMode's kernel: W3C color, `B = SetLum(Cs, Lum(Cb))`: the source's hue and saturation with the backdrop's luminosity.
    public static let color = CIBlendKernel(stage: BlendStage(mode: .color))
    /// CILuminosityBlendMode's kernel: W3C luminosity, `B = SetLum(Cb, Lum(Cs))`.
    public static let luminosity = CIBlendKernel(stage: BlendStage(mode: .luminosity))
}
