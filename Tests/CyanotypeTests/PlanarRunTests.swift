import CCyanotypeKernels
import Foundation
import Testing

/// Planar runs of colour stages (`cyan_planar_run`) against the stages' own row loops run one
/// after another (`cyan_matrix_rgbaf`, `cyan_vibrance_rgbaf`, `cyan_power_table_rgbaf`): the
/// same bits for every pixel, rows of any length (short last blocks), and blocks a stage
/// declines (values outside the power table: 300, -500, infinity, NaN) finished by the row
/// loops as the fused loop does. Runs on the CPU's widest path (AVX-512 or AVX2); skipped
/// where there is no planar path.
@Suite struct PlanarRunTests {
    /// A power table of (a, b, c, 0) cells for k = 5 (x^0.9 at the cell starts; any values do:
    /// both sides only look cells up).
    static let k: Int32 = 5
    static let count: Int32 = 135 << 5
    static let cells: [Float] = (0..<Int(count)).flatMap { j -> [Float] in
        let e = j >> 5
        if e == 0 { return [0, 0, 0, 0] }
        let x = pow(2.0, Double(e - 127)) * (1 + Double(j & 31) / 32)
        return [Float(pow(x, 0.9)), Float(0.03 * x), Float(-0.001 * x), 0]
    }
    static let m1: [Float] = [1.1, 0.06, 0.06, 0, 0.06, 1.1, 0.06, 0, 0.06, 0.06, 1.1, 0, 0, 0, 0, 1, 0.01, 0.01, 0.01, 0]
    static let m2: [Float] = [1.1, -0.02, -0.02, 0, -0.07, 1.08, -0.07, 0, -0.01, -0.01, 1.1, 0, 0, 0, 0, 1, -0.005, -0.005, -0.005, 0]

    /// The chain one row loop after another; pixels outside the table are left as they are
    /// by both sides (the Swift stage sends them to its exact pow).
    static func reference(_ row: inout [Float], _ n: Int) {
        var outside = [Int32](repeating: 0, count: max(1, n))
        row.withUnsafeMutableBufferPointer { p in
            _ = cyan_matrix_rgbaf(p.baseAddress, n, m1, 1)
            _ = cyan_vibrance_rgbaf(p.baseAddress, n, 0.4)
            _ = cells.withUnsafeBufferPointer { cyan_power_table_rgbaf(p.baseAddress, n, $0.baseAddress, k, count, &outside) }
            _ = cyan_matrix_rgbaf(p.baseAddress, n, m2, 0)
        }
    }

    @Test(.enabled(if: cyan_planar_available() != 0, "no AVX2/FMA: no planar path on this CPU"))
    func planarRunGivesTheRowLoopsBits() {
        var seed: UInt64 = 11
        func next() -> Float {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Float(seed >> 40) / Float(1 << 24)
        }
        let block = cyan_planar_block_length()
        for n in [1, 7, 8, 15, 16, 17, 63, 64, 65, 130, 257] {
            for outsiders in [false, true] {
                var row = [Float](repeating: 1, count: 4 * n)
                let hasOutsider = outsiders && n > 5
                for i in 0..<n {
                    for c in 0..<3 { row[4 * i + c] = next() * next() }
                    if outsiders && i % 37 == 5 { row[4 * i + (i % 3)] = [300, -500, .infinity, .nan][(i / 37) % 4] }
                }
                var want = row
                Self.reference(&want, n)
                var got = row
                let stages = [
                    cyan_planar_matrix(Self.m1), cyan_planar_vibrance(0.4),
                    Self.cells.withUnsafeBufferPointer { cyan_planar_power_table($0.baseAddress, Self.k, Self.count) },
                    cyan_planar_matrix(Self.m2),
                ]
                var declines = 0
                Self.cells.withUnsafeBufferPointer { table in
                    got.withUnsafeMutableBufferPointer { p in
                        var from = 0
                        while from < n {
                            var declined: Int32 = 0
                            let done = from + cyan_planar_run(p.baseAddress! + 4 * from, n - from, stages, 4, &declined)
                            if done >= n { break }
                            declines += 1
                            let len = min(block, n - done), q = p.baseAddress! + 4 * done
                            var outside = [Int32](repeating: 0, count: len)
                            // The rest of the run on that block, by the row loops.
                            for s in Int(declined)..<4 {
                                switch s {
                                case 0: _ = cyan_matrix_rgbaf(q, len, Self.m1, 1)
                                case 1: _ = cyan_vibrance_rgbaf(q, len, 0.4)
                                case 2: _ = cyan_power_table_rgbaf(q, len, table.baseAddress, Self.k, Self.count, &outside)
                                default: _ = cyan_matrix_rgbaf(q, len, Self.m2, 0)
                                }
                            }
                            from = done + len
                        }
                    }
                }
                #expect(hasOutsider == (declines > 0), "n \(n): \(declines) blocks declined")
                let same = zip(got, want).allSatisfy { $0.bitPattern == $1.bitPattern }
                let first = zip(got, want).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }
                #expect(same, "n \(n) outsiders \(outsiders): first difference at float \(first.map { "\($0.offset): \($0.element)" } ?? "-")")
            }
        }
    }
}
