import Foundation

// CIAccordionFoldTransition: both pictures are folded like an accordion above a base line and
// cross-fade. Seen straight on, an accordion of equal flat panels tilted by phi is the picture
// compressed by cos(phi) (orthographic view): one warp per picture, a vertical scale about
// the base line, and a colour stage for the cross-fade and the shading of the panels that
// face down.

/// A picture folded above `base` to `compression` of its height.
struct AccordionMap: WarpMap {
    let base: Double, compression: Double

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        y < base ? (x, y) : (x, base + (y - base) / compression)
    }
    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (_, y0) = source(box.minX, box.minY)!, (_, y1) = source(box.maxX, box.maxY)!
        return PointBox(minX: box.minX, minY: y0, maxX: box.maxX, maxY: y1)
    }
    var label: String { "accordion fold above \(base) to \(compression)" }
}

/// The cross-fade and the panels' shading: the folded part's panels (`panels` of
/// `panelHeight` from `base` up) alternate facing up and down; those facing down are
/// darkened by `darkening`.
struct AccordionStage: ColorStage {
    let time: Float, base: Double, panelHeight: Double, panels: Int, darkening: Float

    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let target = extra[0], t = time
        let yc = Double(y) + 0.5
        var k: Float = 1
        if yc >= base, panelHeight > 0 {
            let panel = Int(min((yc - base) / panelHeight, Double(panels)))
            if panel < panels && panel % 2 == 1 { k = 1 - darkening }
        }
        for i in 0..<count {
            let p = row[i] * (1 - t) + target[i] * t
            row[i] = SIMD4(p.x * k, p.y * k, p.z * k, p.w)
        }
    }
    var label: String { "accordion fold" }
}

extension BuiltinFilters {
    /// CIAccordionFoldTransition: Transition that reveals the target image by folding the source like an accordion.
    static let accordionFoldTransition = BuiltinFilter(
        FilterDescriptor(
            "CIAccordionFoldTransition", "Accordion Fold Transition", "Transition that reveals the target image by folding the source like an accordion.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video], macOS: "10.10", iOS: "8", factory: "accordionFoldTransition",
            doc: """
                Both pictures fold up like an accordion above a base line
                and cross-fade, the fold closing most half way through. The base line is `bottomHeight`
                above the bottom of both images' extents; below it the pictures are not folded. Above
                it, with L the mix of the input's and target's heights above the base
                (`(1 - time) L_input + time L_target`), the folded stack is `H = (1 - 0.8 sin(pi time)) L`
                high, and each picture is drawn compressed to it (by `H / L_picture`; a picture
                shorter than H is stretched instead), as an accordion of `2 * numberOfFolds` equal
                panels tilted by `phi` (`cos phi = H / L`) looks when seen straight on. The pictures
                cross-fade, `(1 - time) input + time target`, and every other panel (those facing
                down) is darkened by `foldShadowAmount * sin(phi)`. Time 0 is the input, time 1 the
                target. Output extent: both images'.
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .number("inputBottomHeight", "Bottom Height", .distance, default: 0, min: 0, "The height of the unfolded strip at the bottom, in pixels."),
                .number(
                    "inputNumberOfFolds", "Number of Folds", .scalar, default: 3, min: 1, max: 50, slider: 1...10,
                    """
                    How many folds (each a pair of panels, one facing up and one
                    down); rounded to a whole number.
                    """),
                .number(
                    "inputFoldShadowAmount", "Fold Shadow Amount", .scalar, default: 0.1, min: 0, max: 1, slider: 0...1,
                    "How dark the panels facing down get when folded flat."),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
            ]),
        reach: .unbounded
    ) { args throws(CIFilterError) in
        let image = try args.image(), target = try args.image(kCIInputTargetImageKey)
        let t = try args.number(kCIInputTimeKey), bottom = try args.number("inputBottomHeight")
        let folds = max(1, Int(try args.number("inputNumberOfFolds").rounded()))
        let shadow = try args.number("inputFoldShadowAmount")
        if t <= 0 { return image }
        if t >= 1 { return target }
        let extent = image.extent.union(target.extent)
        if extent.isEmpty { return .empty() }
        guard !extent.isInfiniteOrHuge else {
            return image.applying(DissolveStage(time: Float(t)), extras: [target], extent: extent)
        }
        let base = Double(extent.minY) + bottom
        func height(_ e: CGRect) -> Double { e.isEmpty ? 0 : max(0, Double(e.maxY) - base) }
        let li = height(image.extent), lt = height(target.extent)
        let l = (1 - t) * li + t * lt
        let squeeze = 1 - 0.8 * sin(Double.pi * t)
        let h = squeeze * l
        func folded(_ picture: CIImage, _ length: Double) -> CIImage {
            guard length > 0, h > 0 else { return picture }
            return CIImage(node: WarpNode(input: picture.node, map: AccordionMap(base: base, compression: h / length), extent: extent))
        }
        let panels = 2 * folds
        let stage = AccordionStage(
            time: Float(t), base: base, panelHeight: h / Double(panels), panels: panels,
            darkening: Float(shadow * (1 - squeeze * squeeze).squareRoot()))
        return folded(image, li).applying(stage, extras: [folded(target, lt)], extent: extent)
    }
}
