// The Core Image composite operations: Porter-Duff compositing, component-wise
// compositing and the W3C / Photoshop blend modes, one family. The maths lives in
// `BlendStage`; the family's table picks each filter's mode and output extent.

extension BuiltinFilters {
    /// The family of CISourceOverCompositing, CIAdditionCompositing, CIMaximumCompositing and 27 more: one implementation, a table per filter.
    static let composites = BuiltinFilter.family(
        doc: """
            The composite operations and blend modes. Blend modes (`CI*BlendMode`) composite with
            the W3C general formula on premultiplied colour,
            `co = cs(1 - ab) + cb(1 - as) + as*ab*B(Cb, Cs)`, `ao = as + ab - as*ab`, where `B` is the
            mode's function of the straight backdrop `Cb` and source `Cs`; their extent is the union
            of both extents (Apple: "the union of the foreground and background extents").
            Non-separable modes use the W3C `Lum` weights (0.3, 0.59, 0.11).
            """,
        categories: [.builtIn, .compositeOperation, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.4", iOS: "5",
        protocol: "CICompositeOperation",
        inputs: [
            .image("inputImage", "Image", "The source (foreground) image."),
            .image("inputBackgroundImage", "Background Image", "The backdrop the source is composited over."),
        ],
        [
            (
                FilterDescriptor(
                    "CISourceOverCompositing", "Source Over", "Porter-Duff source-over composite (normal alpha blending).",
                    categories: [.builtIn, .compositeOperation, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
                    factory: "sourceOverCompositing",
                    doc: "The image over the background (Porter-Duff source-over). Extent: the union of both extents.",
                ),
                Compositing(mode: .sourceOver, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIAdditionCompositing", "Addition", "Adds source and background color components per channel (brightening composite).",
                    categories: [.builtIn, .compositeOperation, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
                    factory: "additionCompositing",
                    doc: "Adds the premultiplied colours, `co = cs + cb` (not clamped, so HDR values survive), alpha `min(1, as + ab)`. Extent: the union of both extents.",
                ),
                Compositing(mode: .addition, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIMaximumCompositing", "Maximum", "Per-channel maximum of source and background.",
                    categories: [.builtIn, .compositeOperation, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
                    factory: "maximumCompositing",
                    doc: "The component-wise maximum of the premultiplied pixels, alpha included. Extent: the union of both extents.",
                ),
                Compositing(mode: .maximum, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIMinimumCompositing", "Minimum", "Per-channel minimum of source and background.",
                    categories: [.builtIn, .compositeOperation, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
                    factory: "minimumCompositing",
                    doc: "The component-wise minimum of the premultiplied pixels, alpha included. Extent: the union of both extents.",
                ),
                Compositing(mode: .minimum, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIMultiplyCompositing", "Multiply", "Per-channel product of source and background.",
                    categories: [.builtIn, .compositeOperation, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
                    factory: "multiplyCompositing",
                    doc: "Multiplies the premultiplied pixels component-wise, alpha included: `o = s * b`. Extent: the union of both extents.",
                ),
                Compositing(mode: .multiplyCompositing, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CISourceAtopCompositing", "Source Atop", "Porter-Duff source-atop composite.",
                    categories: [.builtIn, .compositeOperation, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
                    factory: "sourceAtopCompositing",
                    doc: "Porter-Duff source-atop, `co = cs*ab + cb*(1 - as)`, `ao = ab`. Extent: the background's, since nothing shows outside it.",
                ),
                Compositing(mode: .sourceAtop, extent: .background)
            ),
            (
                FilterDescriptor(
                    "CISourceInCompositing", "Source In", "Porter-Duff source-in composite.",
                    categories: [.builtIn, .compositeOperation, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
                    factory: "sourceInCompositing",
                    doc: "Porter-Duff source-in, `o = s * ab`. Extent: the intersection of both extents (clear everywhere else).",
                ),
                Compositing(mode: .sourceIn, extent: .intersection)
            ),
            (
                FilterDescriptor(
                    "CISourceOutCompositing", "Source Out", "Porter-Duff source-out composite.",
                    categories: [.builtIn, .compositeOperation, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
                    factory: "sourceOutCompositing",
                    doc: "Porter-Duff source-out, `o = s * (1 - ab)`. Extent: the input image's (clear outside it).",
                ),
                Compositing(mode: .sourceOut, extent: .image)
            ),
            (
                FilterDescriptor(
                    "CIMultiplyBlendMode", "Multiply Blend Mode", "Blend mode: multiply.",
                    factory: "multiplyBlendMode",
                    doc: "W3C multiply, `B = Cb * Cs`, with source-over alpha.",
                ),
                Compositing(mode: .multiply, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIScreenBlendMode", "Screen Blend Mode", "Blend mode: screen.",
                    factory: "screenBlendMode",
                    doc: "W3C screen, `B = Cb + Cs - Cb*Cs`.",
                ),
                Compositing(mode: .screen, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIOverlayBlendMode", "Overlay Blend Mode", "Blend mode: overlay.",
                    factory: "overlayBlendMode",
                    doc: "W3C overlay, hard-light with the arguments swapped: `B = HardLight(Cs, Cb)`.",
                ),
                Compositing(mode: .overlay, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIDarkenBlendMode", "Darken Blend Mode", "Blend mode: keeps the darker of source and background.",
                    factory: "darkenBlendMode",
                    doc: "W3C darken, `B = min(Cb, Cs)`.",
                ),
                Compositing(mode: .darken, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CILightenBlendMode", "Lighten Blend Mode", "Blend mode: keeps the lighter of source and background.",
                    factory: "lightenBlendMode",
                    doc: "W3C lighten, `B = max(Cb, Cs)`.",
                ),
                Compositing(mode: .lighten, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIColorDodgeBlendMode", "Color Dodge Blend Mode", "Blend mode: color dodge (brightens background to reflect the source).",
                    factory: "colorDodgeBlendMode",
                    doc: "W3C color-dodge: `B = 0` if `Cb = 0`, 1 if `Cs = 1`, else `min(1, Cb / (1 - Cs))`.",
                ),
                Compositing(mode: .colorDodge, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIColorBurnBlendMode", "Color Burn Blend Mode", "Blend mode: color burn (darkens background to reflect the source).",
                    factory: "colorBurnBlendMode",
                    doc: "W3C color-burn: `B = 1` if `Cb >= 1`, 0 if `Cs = 0`, else `1 - min(1, (1 - Cb) / Cs)`.",
                ),
                Compositing(mode: .colorBurn, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIHardLightBlendMode", "Hard Light Blend Mode", "Blend mode: hard light (multiply or screen depending on source).",
                    factory: "hardLightBlendMode",
                    doc: "W3C hard-light: multiply by `2Cs` when `Cs <= 0.5`, else screen with `2Cs - 1`.",
                ),
                Compositing(mode: .hardLight, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CISoftLightBlendMode", "Soft Light Blend Mode", "Blend mode: soft light.",
                    factory: "softLightBlendMode",
                    doc: "W3C soft-light (the PDF / W3C formula with `D(Cb)`, not Photoshop's).",
                ),
                Compositing(mode: .softLight, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIDifferenceBlendMode", "Difference Blend Mode", "Blend mode: absolute difference of source and background.",
                    factory: "differenceBlendMode",
                    doc: "W3C difference, `B = |Cb - Cs|`.",
                ),
                Compositing(mode: .difference, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIExclusionBlendMode", "Exclusion Blend Mode", "Blend mode: exclusion (lower-contrast variant of difference).",
                    factory: "exclusionBlendMode",
                    doc: "W3C exclusion, `B = Cb + Cs - 2 Cb Cs`.",
                ),
                Compositing(mode: .exclusion, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CILinearBurnBlendMode", "Linear Burn Blend Mode", "Blend mode: linear burn.",
                    macOS: "10.10", iOS: "8", factory: "linearBurnBlendMode",
                    doc: "Photoshop linear burn, `B = max(0, Cb + Cs - 1)`.",
                ),
                Compositing(mode: .linearBurn, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CILinearDodgeBlendMode", "Linear Dodge Blend Mode", "Blend mode: linear dodge (add).",
                    macOS: "10.10", iOS: "8", factory: "linearDodgeBlendMode",
                    doc: "Photoshop linear dodge, `B = min(1, Cb + Cs)`.",
                ),
                Compositing(mode: .linearDodge, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CILinearLightBlendMode", "Linear Light Blend Mode", "Blend mode: linear light (linear burn plus linear dodge).",
                    macOS: "12.0", iOS: "15", factory: "linearLightBlendMode",
                    doc: "Photoshop linear light (linear burn below half, linear dodge above), `B = clamp(Cb + 2Cs - 1, 0, 1)`.",
                ),
                Compositing(mode: .linearLight, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIVividLightBlendMode", "Vivid Light Blend Mode", "Blend mode: vivid light (color burn plus color dodge).",
                    macOS: "12.0", iOS: "15", factory: "vividLightBlendMode",
                    doc: "Photoshop vivid light: W3C colour burn with `2Cs` when `Cs <= 0.5`, colour dodge with `2Cs - 1` above.",
                ),
                Compositing(mode: .vividLight, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIPinLightBlendMode", "Pin Light Blend Mode", "Blend mode: pin light.",
                    macOS: "10.10", iOS: "8", factory: "pinLightBlendMode",
                    doc: "Photoshop pin light: `min(Cb, 2Cs)` when `Cs <= 0.5`, else `max(Cb, 2Cs - 1)`.",
                ),
                Compositing(mode: .pinLight, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CISubtractBlendMode", "Subtract Blend Mode", "Blend mode: subtract source from background.",
                    macOS: "10.10", iOS: "8", factory: "subtractBlendMode",
                    doc: "Photoshop subtract, the backdrop minus the source: `B = max(0, Cb - Cs)`.",
                ),
                Compositing(mode: .subtract, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIDivideBlendMode", "Divide Blend Mode", "Blend mode: divides background by source.",
                    macOS: "10.10", iOS: "8", factory: "divideBlendMode",
                    doc: "Photoshop divide, the backdrop over the source: `B = min(1, Cb / Cs)`; `Cs = 0` gives 1 (0 where `Cb = 0`).",
                ),
                Compositing(mode: .divide, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIHueBlendMode", "Hue Blend Mode", "Blend mode: background luminance and saturation with the source hue.",
                    factory: "hueBlendMode",
                    doc: "W3C hue, `B = SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))`.",
                ),
                Compositing(mode: .hue, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CISaturationBlendMode", "Saturation Blend Mode", "Blend mode: background luminance and hue with the source saturation.",
                    factory: "saturationBlendMode",
                    doc: "W3C saturation, `B = SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))`.",
                ),
                Compositing(mode: .saturation, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CIColorBlendMode", "Color Blend Mode", "Blend mode: background luminance with the source's hue and saturation.",
                    factory: "colorBlendMode",
                    doc: "W3C color, `B = SetLum(Cs, Lum(Cb))`: the source's hue and saturation with the backdrop's luminosity.",
                ),
                Compositing(mode: .color, extent: .union)
            ),
            (
                FilterDescriptor(
                    "CILuminosityBlendMode", "Luminosity Blend Mode", "Blend mode: background hue and saturation with the source luminance.",
                    factory: "luminosityBlendMode",
                    doc: "W3C luminosity, `B = SetLum(Cb, Lum(Cs))`.",
                ),
                Compositing(mode: .luminosity, extent: .union)
            ),
        ]
    ) { args, compositing throws(CIFilterError) in
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
