// The Core Image composite operations: Porter-Duff compositing, component-wise
// compositing and the W3C / Photoshop blend modes. The maths lives in `BlendStage`; these
// declarations pick the mode and the output extent.
//
// Blend modes (`CI*BlendMode`) composite with the W3C general formula on premultiplied
// colour, `co = cs(1 - ab) + cb(1 - as) + as*ab*B(Cb, Cs)`, `ao = as + ab - as*ab`, where `B`
// is the mode's function of the straight backdrop `Cb` and source `Cs`; their extent is the
// union of both extents (Apple: "the union of the foreground and background extents").
// Non-separable modes use the W3C `Lum` weights (0.3, 0.59, 0.11).

extension BuiltinFilters {
    /// CIAdditionCompositing: adds the premultiplied colours, `co = cs + cb` (not clamped, so HDR values survive), alpha `min(1, as + ab)`. Extent: the union of both extents.
    static let additionCompositing = BuiltinFilter(Catalog.CIAdditionCompositing) { args throws(CIFilterError) in
        try composite(args, .addition, extent: .union)
    }
    /// CIMaximumCompositing: the component-wise maximum of the premultiplied pixels, alpha included. Extent: the union of both extents.
    static let maximumCompositing = BuiltinFilter(Catalog.CIMaximumCompositing) { args throws(CIFilterError) in
        try composite(args, .maximum, extent: .union)
    }
    /// CIMinimumCompositing: the component-wise minimum of the premultiplied pixels, alpha included. Extent: the union of both extents.
    static let minimumCompositing = BuiltinFilter(Catalog.CIMinimumCompositing) { args throws(CIFilterError) in
        try composite(args, .minimum, extent: .union)
    }
    /// CIMultiplyCompositing: multiplies the premultiplied pixels component-wise, alpha included: `o = s * b`. Extent: the union of both extents.
    static let multiplyCompositing = BuiltinFilter(Catalog.CIMultiplyCompositing) { args throws(CIFilterError) in
        try composite(args, .multiplyCompositing, extent: .union)
    }
    /// CISourceAtopCompositing: Porter-Duff source-atop, `co = cs*ab + cb*(1 - as)`, `ao = ab`. Extent: the background's, since nothing shows outside it.
    static let sourceAtopCompositing = BuiltinFilter(Catalog.CISourceAtopCompositing) { args throws(CIFilterError) in
        try composite(args, .sourceAtop, extent: .background)
    }
    /// CISourceInCompositing: Porter-Duff source-in, `o = s * ab`. Extent: the intersection of both extents (clear everywhere else).
    static let sourceInCompositing = BuiltinFilter(Catalog.CISourceInCompositing) { args throws(CIFilterError) in
        try composite(args, .sourceIn, extent: .intersection)
    }
    /// CISourceOutCompositing: Porter-Duff source-out, `o = s * (1 - ab)`. Extent: the input image's (clear outside it).
    static let sourceOutCompositing = BuiltinFilter(Catalog.CISourceOutCompositing) { args throws(CIFilterError) in
        try composite(args, .sourceOut, extent: .image)
    }
    /// CIScreenBlendMode: W3C screen, `B = Cb + Cs - Cb*Cs`.
    static let screenBlendMode = BuiltinFilter(Catalog.CIScreenBlendMode) { args throws(CIFilterError) in
        try composite(args, .screen, extent: .union)
    }
    /// CIOverlayBlendMode: W3C overlay, hard-light with the arguments swapped: `B = HardLight(Cs, Cb)`.
    static let overlayBlendMode = BuiltinFilter(Catalog.CIOverlayBlendMode) { args throws(CIFilterError) in
        try composite(args, .overlay, extent: .union)
    }
    /// CIDarkenBlendMode: W3C darken, `B = min(Cb, Cs)`.
    static let darkenBlendMode = BuiltinFilter(Catalog.CIDarkenBlendMode) { args throws(CIFilterError) in
        try composite(args, .darken, extent: .union)
    }
    /// CILightenBlendMode: W3C lighten, `B = max(Cb, Cs)`.
    static let lightenBlendMode = BuiltinFilter(Catalog.CILightenBlendMode) { args throws(CIFilterError) in
        try composite(args, .lighten, extent: .union)
    }
    /// CIColorDodgeBlendMode: W3C color-dodge: `B = 0` if `Cb = 0`, 1 if `Cs = 1`, else `min(1, Cb / (1 - Cs))`.
    static let colorDodgeBlendMode = BuiltinFilter(Catalog.CIColorDodgeBlendMode) { args throws(CIFilterError) in
        try composite(args, .colorDodge, extent: .union)
    }
    /// CIColorBurnBlendMode: W3C color-burn: `B = 1` if `Cb >= 1`, 0 if `Cs = 0`, else `1 - min(1, (1 - Cb) / Cs)`.
    static let colorBurnBlendMode = BuiltinFilter(Catalog.CIColorBurnBlendMode) { args throws(CIFilterError) in
        try composite(args, .colorBurn, extent: .union)
    }
    /// CIHardLightBlendMode: W3C hard-light: multiply by `2Cs` when `Cs <= 0.5`, else screen with `2Cs - 1`.
    static let hardLightBlendMode = BuiltinFilter(Catalog.CIHardLightBlendMode) { args throws(CIFilterError) in
        try composite(args, .hardLight, extent: .union)
    }
    /// CISoftLightBlendMode: W3C soft-light (the PDF / W3C formula with `D(Cb)`, not Photoshop's).
    static let softLightBlendMode = BuiltinFilter(Catalog.CISoftLightBlendMode) { args throws(CIFilterError) in
        try composite(args, .softLight, extent: .union)
    }
    /// CIDifferenceBlendMode: W3C difference, `B = |Cb - Cs|`.
    static let differenceBlendMode = BuiltinFilter(Catalog.CIDifferenceBlendMode) { args throws(CIFilterError) in
        try composite(args, .difference, extent: .union)
    }
    /// CIExclusionBlendMode: W3C exclusion, `B = Cb + Cs - 2 Cb Cs`.
    static let exclusionBlendMode = BuiltinFilter(Catalog.CIExclusionBlendMode) { args throws(CIFilterError) in
        try composite(args, .exclusion, extent: .union)
    }
    /// CILinearBurnBlendMode: Photoshop linear burn, `B = max(0, Cb + Cs - 1)`.
    static let linearBurnBlendMode = BuiltinFilter(Catalog.CILinearBurnBlendMode) { args throws(CIFilterError) in
        try composite(args, .linearBurn, extent: .union)
    }
    /// CILinearDodgeBlendMode: Photoshop linear dodge, `B = min(1, Cb + Cs)`.
    static let linearDodgeBlendMode = BuiltinFilter(Catalog.CILinearDodgeBlendMode) { args throws(CIFilterError) in
        try composite(args, .linearDodge, extent: .union)
    }
    /// CILinearLightBlendMode: Photoshop linear light (linear burn below half, linear dodge above), `B = clamp(Cb + 2Cs - 1, 0, 1)`.
    static let linearLightBlendMode = BuiltinFilter(Catalog.CILinearLightBlendMode) { args throws(CIFilterError) in
        try composite(args, .linearLight, extent: .union)
    }
    /// CIVividLightBlendMode: Photoshop vivid light: W3C colour burn with `2Cs` when `Cs <= 0.5`, colour dodge with `2Cs - 1` above.
    static let vividLightBlendMode = BuiltinFilter(Catalog.CIVividLightBlendMode) { args throws(CIFilterError) in
        try composite(args, .vividLight, extent: .union)
    }
    /// CIPinLightBlendMode: Photoshop pin light: `min(Cb, 2Cs)` when `Cs <= 0.5`, else `max(Cb, 2Cs - 1)`.
    static let pinLightBlendMode = BuiltinFilter(Catalog.CIPinLightBlendMode) { args throws(CIFilterError) in
        try composite(args, .pinLight, extent: .union)
    }
    /// CISubtractBlendMode: Photoshop subtract, the backdrop minus the source: `B = max(0, Cb - Cs)`.
    static let subtractBlendMode = BuiltinFilter(Catalog.CISubtractBlendMode) { args throws(CIFilterError) in
        try composite(args, .subtract, extent: .union)
    }
    /// CIDivideBlendMode: Photoshop divide, the backdrop over the source: `B = min(1, Cb / Cs)`; `Cs = 0` gives 1 (0 where `Cb = 0`).
    static let divideBlendMode = BuiltinFilter(Catalog.CIDivideBlendMode) { args throws(CIFilterError) in
        try composite(args, .divide, extent: .union)
    }
    /// CIHueBlendMode: W3C hue, `B = SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))`.
    static let hueBlendMode = BuiltinFilter(Catalog.CIHueBlendMode) { args throws(CIFilterError) in
        try composite(args, .hue, extent: .union)
    }
    /// CISaturationBlendMode: W3C saturation, `B = SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))`.
    static let saturationBlendMode = BuiltinFilter(Catalog.CISaturationBlendMode) { args throws(CIFilterError) in
        try composite(args, .saturation, extent: .union)
    }
    /// CIColorBlendMode: W3C color, `B = SetLum(Cs, Lum(Cb))`: the source's hue and saturation with the backdrop's luminosity.
    static let colorBlendMode = BuiltinFilter(Catalog.CIColorBlendMode) { args throws(CIFilterError) in
        try composite(args, .color, extent: .union)
    }
    /// CILuminosityBlendMode: W3C luminosity, `B = SetLum(Cb, Lum(Cs))`.
    static let luminosityBlendMode = BuiltinFilter(Catalog.CILuminosityBlendMode) { args throws(CIFilterError) in
        try composite(args, .luminosity, extent: .union)
    }
}

/// Which rectangle a composite covers.
enum CompositeExtent { case union, intersection, image, background }

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
