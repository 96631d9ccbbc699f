// Mixing an image with a background: by a mask image (CIBlendWithMask and its alpha, red and
// blue variants: one family) or by a constant amount (CIMix).

extension BuiltinFilters {
    /// The family of CIBlendWithMask, CIBlendWithAlphaMask, CIBlendWithRedMask and 1 more: one implementation, a table per filter.
    static let maskBlends = BuiltinFilter.family(
        doc: """
            The mask blends. Apple: "When a mask value is 0.0, the result is the background. When
            the mask value is 1.0, the result is the image." The mix runs on premultiplied
            working-space colour, alpha included, `out = image * t + background * (1 - t)` (exactly
            the image at 1 and the background at 0), as a Core Image kernel's `mix` would; the mask
            value `t` is one channel of the mask's working-space (linear, premultiplied) pixel,
            limited to 0...1 (NaN counts as 0). Outside the mask's extent the mask is clear, so the
            result is the background there; outside an image's extent that image is clear. The
            output covers the union of the image and background extents (clear outside both,
            whatever the mask).
            """,
        categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video],
        inputs: [
            .image(),
            .image("inputBackgroundImage", "Background Image", "The image where the mask is 0."),
            .image("inputMaskImage", "Mask Image", "The mask; one of its channels weighs the image against the background."),
        ],
        [
            (
                FilterDescriptor(
                    "CIBlendWithMask", "Blend With Mask", "Mixes foreground over background using a grayscale (green channel) mask as weight.",
                    macOS: "10.4", iOS: "6", factory: "blendWithMask",
                    doc: """
                        The mask's green channel selects the image (1) or the background (0).
                        Apple documents the mask as "grayscale (green channel)": for a grey mask that is its
                        luminance.
                        """,
                ),
                MaskBlendStage.Channel.green
            ),
            (
                FilterDescriptor(
                    "CIBlendWithAlphaMask", "Blend With Alpha Mask", "Mixes foreground over background using the mask image's alpha as weight.",
                    macOS: "10.9", iOS: "7", factory: "blendWithAlphaMask", protocol: "CIBlendWithMask",
                    doc: "The mask's alpha selects the image (1) or the background (0).",
                ),
                .alpha
            ),
            (
                FilterDescriptor(
                    "CIBlendWithRedMask", "Blend With Red Mask", "Mixes foreground over background using the mask image's red channel as weight.",
                    macOS: "10.13", iOS: "11", factory: "blendWithRedMask", protocol: "CIBlendWithMask",
                    doc: "The mask's red channel selects the image (1) or the background (0).",
                ),
                .red
            ),
            (
                FilterDescriptor(
                    "CIBlendWithBlueMask", "Blend With Blue Mask", "Mixes foreground over background using the mask image's blue channel as weight.",
                    macOS: "10.13", iOS: "11", factory: "blendWithBlueMask", protocol: "CIBlendWithMask",
                    doc: "The mask's blue channel selects the image (1) or the background (0).",
                ),
                .blue
            ),
        ]
    ) { args, channel throws(CIFilterError) in
        try maskBlend(args, channel)
    }

    /// CIMix: Linear interpolation between the image and a background by an amount.
    static let mix = BuiltinFilter(
        FilterDescriptor(
            "CIMix", "Mix", "Linear interpolation between the image and a background by an amount.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.14", iOS: "12", factory: "mix",
            doc: """
                `image * amount + background * (1 - amount)` on premultiplied colour, alpha
                included. As Apple documents, an amount of 0 or less gives the background and 1 or
                more the image (those two are returned as they are); in between the extent is the
                union of both extents.
                """,
            inputs: [
                .image(),
                .image("inputBackgroundImage", "Background Image"),
                .number("inputAmount", "Amount", .scalar, default: 1, identity: 1, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image(), background = try args.image(kCIInputBackgroundImageKey)
        let amount = try args.float(kCIInputAmountKey)
        if amount >= 1 { return image }
        if amount <= 0 { return background }
        return image.applying(MixStage(amount: amount), extras: [background], extent: image.extent.union(background.extent))
    }
}

/// Reads the three images and applies the mask blend for `channel`.
private func maskBlend(_ args: FilterArguments, _ channel: MaskBlendStage.Channel) throws(CIFilterError) -> CIImage {
    let image = try args.image(), background = try args.image(kCIInputBackgroundImageKey)
    let mask = try args.image(kCIInputMaskImageKey)
    return image.applying(MaskBlendStage(channel: channel), extras: [background, mask], extent: image.extent.union(background.extent))
}

/// Mixes the row (the image) towards `extra[0]` (the background) by one channel of
/// `extra[1]` (the mask), on premultiplied colour: 1 keeps the image, 0 gives the background.
struct MaskBlendStage: ColorStage {
    enum Channel: String, Sendable { case red, green, blue, alpha }
    let channel: Channel
    var extraInputCount: Int { 2 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let bg = extra[0], mask = extra[1]
        switch channel {
        case .red: maskMixRow(RedLane.self, row, bg, mask, count)
        case .green: maskMixRow(GreenLane.self, row, bg, mask, count)
        case .blue: maskMixRow(BlueLane.self, row, bg, mask, count)
        case .alpha: maskMixRow(AlphaLane.self, row, bg, mask, count)
        }
    }
    var label: String { "blend with \(channel.rawValue) mask" }

    enum RedLane: MaskLane { @inline(__always) static func value(_ m: SIMD4<Float>) -> Float { m.x } }
    enum GreenLane: MaskLane { @inline(__always) static func value(_ m: SIMD4<Float>) -> Float { m.y } }
    enum BlueLane: MaskLane { @inline(__always) static func value(_ m: SIMD4<Float>) -> Float { m.z } }
    enum AlphaLane: MaskLane { @inline(__always) static func value(_ m: SIMD4<Float>) -> Float { m.w } }
}

/// Which channel of a mask pixel weights the mix (one specialised loop per channel).
protocol MaskLane { static func value(_ m: SIMD4<Float>) -> Float }

/// The mask value limited to 0...1; NaN gives 0 (the background).
@inline(__always) func unitMaskValue(_ v: Float) -> Float {
    if !(v > 0) { return 0 }
    return v < 1 ? v : 1
}

@inline(__always)
func maskMixRow<L: MaskLane>(
    _: L.Type, _ row: UnsafeMutablePointer<SIMD4<Float>>, _ bg: UnsafeMutablePointer<SIMD4<Float>>,
    _ mask: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int
) {
    for i in 0..<count {
        let t = unitMaskValue(L.value(mask[i]))
        row[i] = row[i] * t + bg[i] * (1 - t)
    }
}

/// Mixes the row (the image) towards `extra[0]` (the background) by a constant amount, on
/// premultiplied colour.
struct MixStage: ColorStage {
    let amount: Float
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let bg = extra[0], t = amount, u = 1 - amount
        for i in 0..<count { row[i] = row[i] * t + bg[i] * u }
    }
    var label: String { "mix \(amount)" }
}
