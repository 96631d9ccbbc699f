import Cyanotype
import Foundation

/// `--origin`: the corner the tools measure points and rectangles in filter specs from.
/// `top-left` (the default) is every image tool's convention and `--crop`'s: y grows
/// downwards. `bottom-left` keeps Core Image's own (y grows upwards). The library (`CIFilter`)
/// always takes Core Image's; the tools convert.
package enum Origin: String, CaseIterable, Sendable {
    case topLeft = "top-left"
    case bottomLeft = "bottom-left"

    /// The option as every command that runs filters lists it.
    package static let option = OptionSpec(
        "--origin", value: "CORNER",
        help: "Where filter points and rectangles are measured from: top-left (default, as --crop: y down) or bottom-left (Core Image's: y up).")

    /// `--origin` from the command line (top-left when absent).
    package static func parse(_ args: ParsedArguments) throws(CLIError) -> Origin {
        try parse(args.value("origin"), option: "--origin")
    }

    /// A written origin (`top-left`, `bottom-left`; nil: top-left), or a usage error naming
    /// `option`.
    package static func parse(_ text: String?, option: String) throws(CLIError) -> Origin {
        guard let text else { return .topLeft }
        let key = text.lowercased().replacingOccurrences(of: "_", with: "-")
        if let o = Origin(rawValue: key) { return o }
        if key == "topleft" { return .topLeft }
        if key == "bottomleft" { return .bottomLeft }
        let names = allCases.map(\.rawValue)
        throw .usage("\(option) must be top-left or bottom-left, got '\(text)'" + Suggest.hint(key, in: names))
    }
}

extension ResolvedFilter {
    /// Whether `input` is a point or a rectangle in the picture's space (Core Image's
    /// `CIAttributeTypePosition`, `...Position3`, `...Rectangle`): the inputs `--origin` and
    /// the picture-relative defaults apply to. Offsets, colour vectors and sizes are not.
    package static func isPlacement(_ input: FilterInputDescriptor) -> Bool {
        guard input.className == "CIVector", input.key != "inputSize" else { return false }
        return [kCIAttributeTypePosition, kCIAttributeTypePosition3, kCIAttributeTypeRectangle].contains(input.attributeType ?? "")
    }

    /// This filter as the tools run it on a picture covering `extent`: points and rectangles
    /// written from the top-left corner (`origin`) turned into Core Image's bottom-left space
    /// (y' = top - y; a rectangle's y' = top - y - h), and points left at Apple's fixed
    /// defaults placed on the picture instead: (150, 150) becomes its centre, a perspective
    /// quadrilateral's corners its corners, any other default point the same place in the
    /// picture as in a 300 x 300 one; the radius of a vignette or distortion around a centre
    /// is scaled the same way (`pictureRadius`). Generators (no picture) keep Apple's defaults.
    package func placed(in extent: CGRect, origin: Origin) -> ResolvedFilter {
        guard !extent.isInfinite, !extent.isEmpty else { return self }
        var values = self.values
        for input in descriptor.inputs where Self.isPlacement(input) {
            if let v = values[input.key] as? CIVector {
                if origin == .topLeft { values[input.key] = Self.flipped(v, type: input.attributeType, in: extent) }
            } else if values[input.key] == nil, takesImage, let d = Self.pictureDefault(input, in: extent) {
                values[input.key] = d
            }
        }
        if takesImage, values[kCIInputRadiusKey] == nil, let r = pictureRadius(in: extent) { values[kCIInputRadiusKey] = NSNumber(value: r) }
        return ResolvedFilter(descriptor: descriptor, values: values)
    }

    /// `v` written from the top-left corner of `extent`, in Core Image's bottom-left space.
    static func flipped(_ v: CIVector, type: String?, in extent: CGRect) -> CIVector {
        var c = (0..<v.count).map { v.value(at: $0) }
        if type == kCIAttributeTypeRectangle {
            // [x y w h]; [0 0 0 0] ("the whole input") and infinite rectangles stay as they are.
            guard c.count == 4, c.allSatisfy({ abs($0) < 1e300 }), c[2] != 0 || c[3] != 0 else { return v }
            c[1] = extent.maxY - c[1] - c[3]
            return CIVector(values: c)
        }
        guard c.count >= 2 else { return v }
        c[1] = extent.maxY - c[1]
        return CIVector(values: c)
    }

    /// The radius a vignette or a distortion around a centre (`vignetteEffect`, `twirlDistortion`,
    /// `bumpDistortion`...) uses when none is given: Apple's default is for its 300 x 300 example
    /// picture (150: half its side), so it is scaled to the picture's shorter side; at Apple's
    /// 150 a 24 MP photo would be dark but for a spot. nil for other filters.
    func pictureRadius(in e: CGRect) -> Double? {
        guard descriptor.pictureRelativeKeys.contains(kCIInputRadiusKey), let input = descriptor.input(kCIInputRadiusKey),
            case .number(let r)? = input.defaultValue
        else { return nil }
        return r * Double(min(e.width, e.height)) / 300
    }

    /// The picture-relative default of a point input whose Apple default is a fixed point;
    /// nil where Apple's default is a marker (negative: "not given") or there is none.
    static func pictureDefault(_ input: FilterInputDescriptor, in e: CGRect) -> CIVector? {
        guard input.attributeType != kCIAttributeTypeRectangle, case .vector(let d)? = input.defaultValue, d.count >= 2,
            d[0] >= 0, d[1] >= 0
        else { return nil }
        switch input.key {
        case "inputTopLeft": return CIVector(values: [e.minX, e.maxY])
        case "inputTopRight": return CIVector(values: [e.maxX, e.maxY])
        case "inputBottomLeft": return CIVector(values: [e.minX, e.minY])
        case "inputBottomRight": return CIVector(values: [e.maxX, e.minY])
        default: break
        }
        if d[0] == 150 && d[1] == 150 { return CIVector(values: [e.midX, e.midY] + d.dropFirst(2).map { CGFloat($0) }) }
        // Where the default sits in Apple's 300 x 300 example picture, in this one.
        var c = [e.minX + CGFloat(d[0]) / 300 * e.width, e.minY + CGFloat(d[1]) / 300 * e.height]
        if d.count > 2 { c.append(CGFloat(d[2]) / 300 * min(e.width, e.height)) }
        return CIVector(values: c)
    }
}
