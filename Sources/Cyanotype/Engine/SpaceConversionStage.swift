import CCyanotypeKernels

/// Converts straight colour between the working space (linear sRGB) and another RGB space:
/// what `CIImage.matchedFromWorkingSpace(to:)` and `matchedToWorkingSpace(from:)` do, and
/// how work defined on encoded values (LUTs authored in sRGB, CSS looks) is framed.
///
/// Being explicit stages, conversions can be optimised away (`Optimizer`): a conversion next to
/// its inverse cancels when colour stages fuse, and a leading "to sRGB" over an 8/16-bit sRGB
/// bitmap, or a trailing "from sRGB" into an 8/16-bit sRGB destination, is folded into the
/// read or the write, so a LUT applied to a JPEG never visits linear light at all.
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
            runSRGBCurve(row, count: count, encode: direction == .fromWorking)
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

extension SpaceConversionStage {
    /// The sRGB curve over a row: two pixels per AVX2 vector in C where the CPU has it
    /// (`cyan_srgb_curve_rgbaf`, the same bits as `encodeSRGB` / `decodeSRGB`), with the pixels
    /// it leaves (a colour outside 0...1) through the Swift functions; the Swift loop otherwise.
    private func runSRGBCurve(_ row: UnsafeMutablePointer<SIMD4<Float>>, count: Int, encode: Bool) {
        let t = encode ? SRGBCurveTables.shared.encode : SRGBCurveTables.shared.decode
        let done = withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { outside -> Bool in
            let left = UnsafeMutableRawPointer(row).withMemoryRebound(to: Float.self, capacity: 4 * count) {
                cyan_srgb_curve_rgbaf($0, count, t, Int32(SRGBCurveTables.cells), encode ? 1 : 0, outside.baseAddress!)
            }
            guard left >= 0 else { return false }
            for k in 0..<left {
                let i = Int(outside[k])
                row[i] = encode ? encodeSRGB(row[i], t) : decodeSRGB(row[i], t)
            }
            return true
        }
        if done { return }
        if encode {
            for i in 0..<count { row[i] = encodeSRGB(row[i], t) }
        } else {
            for i in 0..<count { row[i] = decodeSRGB(row[i], t) }
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
