/// Converts straight colour between the working space (linear sRGB) and another RGB space:
/// what `CIImage.matchedFromWorkingSpace(to:)` and `matchedToWorkingSpace(from:)` do, and
/// how work defined on encoded values (LUTs authored in sRGB, CSS looks) is framed.
///
/// Being explicit stages, conversions can be optimised away: a conversion next to its
/// inverse cancels when stages are appended, and at render time a leading "to sRGB" over an
/// 8/16-bit sRGB bitmap, or a trailing "from sRGB" into an 8/16-bit sRGB destination, is
/// folded into the read or the write (`EncodedIO`), so a LUT applied to a JPEG never visits
/// linear light at all.
struct SpaceConversionStage: ColorStage {
    var preservesAlpha: Bool { true }
    enum Direction: Sendable, Equatable { case fromWorking, toWorking }
    let space: CGColorSpace
    let direction: Direction

    var wantsUnpremultiplied: Bool { true }
    var label: String { direction == .fromWorking ? "to \(space)" : "from \(space)" }

    /// Whether this stage undoes `other` exactly (up to float rounding).
    func isInverse(of other: SpaceConversionStage) -> Bool {
        other.space == space && other.direction != direction
    }

    /// True for sRGB primaries with the sRGB curve: the conversions the 8-bit paths fold away.
    var isSRGBCurveOnly: Bool { space.isSRGBPrimaries && space.transfer == .sRGB && space.model == .rgb }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        if isSRGBCurveOnly {
            if direction == .fromWorking {
                let t = SRGBCurveTables.shared.encode
                for i in 0..<count { row[i] = encodeSRGB(row[i], t) }
            } else {
                let t = SRGBCurveTables.shared.decode
                for i in 0..<count { row[i] = decodeSRGB(row[i], t) }
            }
            return
        }
        let space = self.space
        if direction == .fromWorking {
            let m = space.fromSRGBMatrix
            for i in 0..<count {
                let v = row[i]
                var c = SIMD3(v.x, v.y, v.z)
                if let m { c = mul3(m, c) }
                row[i] = SIMD4(space.encode(c.x), space.encode(c.y), space.encode(c.z), v.w)
            }
        } else {
            let m = space.toSRGBMatrix
            for i in 0..<count {
                let v = row[i]
                var c = SIMD3(space.decode(v.x), space.decode(v.y), space.decode(v.z))
                if let m { c = mul3(m, c) }
                row[i] = SIMD4(c, v.w)
            }
        }
    }
}

extension CIImage {
    /// Core Image's colour matching out of the working space: the image's colour expressed
    /// in `colorSpace` (e.g. sRGB-encoded values), for kernels written for that encoding.
    /// nil for a space that is not RGB, as Core Image.
    public func matchedFromWorkingSpace(to colorSpace: CGColorSpace) -> CIImage? {
        guard colorSpace.model == .rgb else { return nil }
        return applying(SpaceConversionStage(space: colorSpace, direction: .fromWorking))
    }

    /// The inverse of `matchedFromWorkingSpace(to:)`: values in `colorSpace` back into the
    /// working space.
    public func matchedToWorkingSpace(from colorSpace: CGColorSpace) -> CIImage? {
        guard colorSpace.model == .rgb else { return nil }
        return applying(SpaceConversionStage(space: colorSpace, direction: .toWorking))
    }

    /// `stage` run on colour encoded with the sRGB curve: framed by explicit conversions
    /// (which cancel against neighbours and fold into 8-bit reads and writes).
    func applyingInSRGB(_ stage: any ColorStage) -> CIImage {
        applying(SpaceConversionStage(space: .sRGBSpace, direction: .fromWorking))
            .applying(stage)
            .applying(SpaceConversionStage(space: .sRGBSpace, direction: .toWorking))
    }
}

/// Render-time folding of sRGB conversions into the source read and the destination write.
enum EncodedIO {
    /// The root to render and the writer to use: a trailing "from sRGB" conversion is dropped
    /// when the destination stores sRGB-encoded integers (the writer then quantises the
    /// encoded values as they are), and a leading "to sRGB" over an sRGB integer bitmap is
    /// dropped by reading the bitmap's codes as they are.
    static func rewrite(_ root: RecipeNode, _ writer: DestinationWriter, colorManaged: Bool) -> (RecipeNode, DestinationWriter) {
        guard colorManaged else { return (root, writer) }
        // Through crops (a clip does not care how colour is encoded).
        if let crop = root as? CropNode {
            let (inner, w) = rewrite(crop.inputs[0], writer, colorManaged: colorManaged)
            return inner === crop.inputs[0] ? (root, writer) : (CropNode(input: inner, rect: crop.extent), w)
        }
        guard var fused = root as? FusedColorNode else { return (root, writer) }
        var w = writer
        if let last = fused.steps.last, last.extras.isEmpty, let conv = last.stage as? SpaceConversionStage,
           conv.direction == .toWorking, conv.isSRGBCurveOnly, writer.storesSRGBIntegers, let raw = writer.unmanaged() {
            fused = FusedColorNode(head: fused.head, steps: Array(fused.steps.dropLast()), extent: fused.extent)
            w = raw
        }
        fused = foldLeadingConversion(fused)
        return (fused, w)
    }

    /// A fused node whose first stage converts an sRGB integer bitmap to sRGB reads the codes.
    static func foldLeadingConversion(_ fused: FusedColorNode) -> FusedColorNode {
        var head = fused.head
        if let lazy = head as? LazySourceNode, let s = try? lazy.source() { head = s }
        guard let first = fused.steps.first, first.extras.isEmpty, let conv = first.stage as? SpaceConversionStage,
              conv.direction == .fromWorking, conv.isSRGBCurveOnly,
              let raw = (head as? BitmapNode)?.sRGBCodesAsValues() ?? (head as? YCbCrSourceNode)?.sRGBEncodedVariant()
        else { return fused }
        return FusedColorNode(head: raw, steps: Array(fused.steps.dropFirst()), extent: fused.extent)
    }
}
