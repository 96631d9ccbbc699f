import CCyanotypeKernels
import Foundation
import Testing
@testable import Cyanotype

// Every C pixel-loop path in one process. `cyan_select_vector_bits` picks the path for the
// calling thread and the render loops it starts (the executor carries it), so other suites'
// renders keep the environment's path meanwhile; the tests that select one (the golden table
// included) still run one at a time, in the serialized suite below, and give the choice back.
//
// The reference checks: the filter families whose maths has a closed form are compared, on
// every path this CPU has, with their formulas computed in Double in the tests of each family
// (the suites named below); the golden table keeps hashes only for the other filters.

/// One path of the C pixel loops: the portable ones (0 bits), AVX2 + FMA (256), AVX-512 (512).
struct KernelPath: Sendable, CustomStringConvertible {
    let name: String
    let bits: Int32
    var description: String { name }
    static let portable = KernelPath(name: "portable", bits: 0)
    static let avx2 = KernelPath(name: "avx2", bits: 256)
    static let avx512 = KernelPath(name: "avx512", bits: 512)
    static let all = [portable, avx2, avx512]
}

/// Runs `body` once on every path this CPU has, with that path selected on this thread, and
/// records a known issue naming each path it lacks (so a skip shows in the results). Gives the
/// choice back to the environment (CYANOTYPE_PORTABLE_KERNELS, CYANOTYPE_VECTOR_BITS) after.
/// Returns the paths that ran.
@discardableResult
func onEveryKernelPath(_ body: (KernelPath) throws -> Void) rethrows -> [KernelPath] {
    defer { _ = cyan_select_vector_bits(-1) }
    var ran: [KernelPath] = []
    for path in KernelPath.all {
        guard cyan_select_vector_bits(path.bits) == path.bits else {
            withKnownIssue("the \(path.name) pixel loops need a CPU this one is not: not run here") {
                Issue.record("\(path.name) path not run (cyan_hardware_vector_bits() = \(cyan_hardware_vector_bits()))")
            }
            continue
        }
        try body(path)
        ran.append(path)
    }
    return ran
}

/// The filters whose output is checked against a Double reference on every kernel path (by
/// `KernelPathSuites.ReferenceChecks`); the golden table holds no hashes for them.
let referenceCheckedFilters: Set<String> = Set(
    [
        "CIColorMatrix", "CIColorControls", "CIExposureAdjust", "CIGammaAdjust", "CIHueAdjust", "CISepiaTone",
        "CIColorMonochrome", "CIColorInvert", "CIVibrance", "CIVignette", "CIMaximumComponent", "CIMinimumComponent",
        "CIColorCrossPolynomial", "CIGaussianBlur", "CIBoxBlur", "CIUnsharpMask", "CIMorphologyMaximum",
        "CIMorphologyMinimum", "CIMorphologyGradient", "CIMorphologyRectangleMaximum", "CIMorphologyRectangleMinimum",
        "CIColorCube", "CIColorCubeWithColorSpace", "CILanczosScaleTransform",
    ] + separableBlendModes + nonSeparableBlendModes + compositingOperations + ConvolutionAndMorphologyTests.shapes.map(\.0))

/// Everything that selects a kernel path, one test at a time.
@Suite(.serialized) struct KernelPathSuites {}

extension KernelPathSuites {
    @Suite struct ReferenceChecks {
        @Test func pathsAreSelectableAndTheEnvironmentsChoiceComesBack() {
            let before = cyan_vector_bits()
            let ran = onEveryKernelPath { path in
                #expect(cyan_vector_bits() == path.bits)
                // The C loops follow the selection: on the portable path they decline (0) and
                // the Swift loops run; on the vector paths they run (1).
                var pixel: [Float] = [0.5, 0.25, 0.125, 1]
                let matrix: [Float] = [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0]
                let ranInC = pixel.withUnsafeMutableBufferPointer { cyan_matrix_rgbaf($0.baseAddress, 1, matrix, 0) }
                #expect(ranInC == (path.bits >= 256 ? 1 : 0), "\(path)")
                if ranInC == 1 { #expect(pixel == [1, 0.5, 0.25, 1], "\(path): \(pixel)") }
            }
            #expect(cyan_vector_bits() == before)
            // Always the portable loops; the vector ones exactly where the CPU has them.
            let hw = cyan_hardware_vector_bits()
            #expect(ran.map(\.bits) == KernelPath.all.map(\.bits).filter { $0 <= hw })
            // A path wider than the CPU's is lowered to the CPU's.
            #expect(cyan_select_vector_bits(4096) == hw)
            #expect(cyan_select_vector_bits(-1) == before)
        }

        /// The selection reaches every loop body of a render started on the selecting thread
        /// (256 tiles, run on the executor's threads) and no other thread.
        @Test func aRenderTakesItsThreadsPathAndOtherThreadsDoNot() throws {
            final class Seen: @unchecked Sendable {
                let lock = NSLock()
                var bits = Set<Int32>()
            }
            let seen = Seen()
            let probe = CIColorKernel(name: "path probe") { _ in
                let bits = cyan_vector_bits()
                seen.lock.lock()
                seen.bits.insert(bits)
                seen.lock.unlock()
            }
            let input = CIImage(color: CIColor(red: 0.2, green: 0.4, blue: 0.6)).cropped(to: CGRect(x: 0, y: 0, width: 256, height: 256))
            let out = try #require(probe.apply(extent: input.extent, arguments: [input]))
            let context = CIContext(options: [.tileSize: 16, .cacheIntermediates: false])
            let environments = cyan_vector_bits()
            try onEveryKernelPath { path in
                seen.lock.lock(); seen.bits = []; seen.lock.unlock()
                _ = try context.renderToData(out, from: input.extent, format: .RGBA8)
                // Another thread meanwhile keeps the environment's choice.
                final class Other: @unchecked Sendable { var bits: Int32 = -2 }
                let other = Other(), done = DispatchSemaphore(value: 0)
                Thread {
                    other.bits = cyan_vector_bits(); done.signal()
                }.start()
                #expect(done.wait(timeout: .now() + 30) == .success)
                #expect(other.bits == environments, "\(path): another thread saw \(other.bits)")
                #expect(seen.bits == [path.bits], "\(path): the tiles saw \(seen.bits.sorted())")
            }
        }

        @Test func pointwiseColourMapsMatchTheirFormulas() throws {
            try onEveryKernelPath { _ in
                let c = ColorFilterTests()
                try c.colorMatrixMatchesRowVectors()
                try c.colorControlsSaturationBrightnessContrast()
                try c.exposureDoublesPerStop()
                try c.gammaIsAPower()
                try c.hueAdjustRotatesAboutGrey()
                try c.sepiaMixesTheW3CMatrix()
                try c.monochromeTintsLuma()
                try c.invertIsOneMinus()
                try c.vibranceFormula()
                try c.vignetteFormula()
                try componentsAndCrossPolynomialMatchTheirFormulas()
            }
        }

        @Test func blendAndCompositingModesMatchW3CAndPorterDuff() throws {
            try onEveryKernelPath { _ in
                let b = BlendModeTests()
                for name in separableBlendModes { try b.separableModeMatchesW3C(name) }
                for name in nonSeparableBlendModes { try b.nonSeparableModeMatchesW3C(name) }
                for name in compositingOperations { try b.compositingMatchesPorterDuffAndApple(name) }
            }
        }

        @Test func convolutionsMatchTheirWeightedSums() throws {
            try onEveryKernelPath { _ in
                let c = ConvolutionAndMorphologyTests()
                for index in ConvolutionAndMorphologyTests.shapes.indices { try c.convolutionMatchesTheDefinition(index) }
            }
        }

        @Test func blursMatchTheirKernels() throws {
            try onEveryKernelPath { _ in
                let b = BlurAndGeometryTests()
                try b.gaussianBlurIsATrueGaussian()
                try b.boxBlurIsTheMean()
                try b.unsharpMaskAddsTheDetail()
                try b.fractionalTranslationIsBilinear()
                try b.scaledAndMirroredTransformsAreBilinear()
            }
        }

        @Test func lanczosScalingIsTheNormalisedLanczos3Sum() throws {
            try onEveryKernelPath { path in try lanczosMatchesItsKernel(path) }
        }

        @Test func morphologyIsTheMinimumAndMaximumOverItsElement() throws {
            try onEveryKernelPath { _ in
                let m = ConvolutionAndMorphologyTests()
                for radius in [1.0, 1.5, 2.3, 3.0] { try m.discMorphologyMatchesTheDefinition(radius) }
                for size in [(5, 5), (1, 4), (4, 1), (2, 3), (6, 2)] { try m.rectangleMorphologyMatchesTheDefinition(size) }
            }
        }

        @Test func colourCubesAreTrilinear() throws {
            try onEveryKernelPath { _ in
                try LUTFilterTests().colorCubeIsAppliedToLinearValuesAndColorSpaceVariantToEncoded()
                try LUTApplyTests().lutCTrilinearAndTetrahedralMatchTheirFormulas()
            }
        }
    }
}

/// CIMaximumComponent / CIMinimumComponent (grey of the largest / smallest of r, g, b, alpha
/// kept) and CIColorCrossPolynomial (each channel a second-order polynomial of the straight
/// r, g, b with Apple's order `[r, g, b, r², g², b², rg, gb, br, 1]`, alpha kept), at
/// translucent seeded pixels.
private func componentsAndCrossPolynomialMatchTheirFormulas() throws {
    var rng = SplitMix(0x5eed_c0de)
    let straight: [[Double]] = (0..<24).map { _ in
        [Double(rng.unit()), Double(rng.unit()), Double(rng.unit()), 0.2 + 0.8 * Double(rng.unit())]
    }
    let input = linearRow(straight)
    try checkSamples(input.applyingFilter("CIMaximumComponent"), straight, tol: 1e-5) { p in
        let m = max(p[0], p[1], p[2]); return [m, m, m, p[3]]
    }
    try checkSamples(input.applyingFilter("CIMinimumComponent"), straight, tol: 1e-5) { p in
        let m = min(p[0], p[1], p[2]); return [m, m, m, p[3]]
    }
    let red: [Double] = [0.9, 0.1, -0.05, 0.2, 0, 0.1, 0.05, 0, -0.1, 0.02]
    let green: [Double] = [0.05, 0.8, 0.1, 0, 0.15, 0, -0.05, 0.1, 0, 0.01]
    let blue: [Double] = [-0.1, 0.2, 0.7, 0.05, 0, 0.2, 0, -0.1, 0.1, 0.03]
    let poly = input.applyingFilter(
        "CIColorCrossPolynomial",
        parameters: [
            "inputRedCoefficients": CIVector(values: red.map { CGFloat($0) }),
            "inputGreenCoefficients": CIVector(values: green.map { CGFloat($0) }),
            "inputBlueCoefficients": CIVector(values: blue.map { CGFloat($0) }),
        ])
    try checkSamples(poly, straight, tol: 1e-4) { p in
        let r = p[0], g = p[1], b = p[2]
        let terms = [r, g, b, r * r, g * g, b * b, r * g, g * b, b * r, 1]
        func dot(_ c: [Double]) -> Double { zip(c, terms).map(*).reduce(0, +) }
        return [dot(red), dot(green), dot(blue), p[3]]
    }
}

/// CILanczosScaleTransform (its `///`: Lanczos-3, `sinc(x) sinc(x / 3)` for |x| < 3, widened by
/// 1/scale when shrinking), separable: output pixel i of an axis scaled by s is centred on
/// source position (i + 0.5) / s and is the sum over source pixels j of
/// `w((j + 0.5 - centre) * min(s, 1)) * in(j)`, the weights normalised to sum 1. Checked at
/// pixels whose taps all lie inside the seeded input (edges aside), enlarging 2x and shrinking
/// to 0.5x.
private func lanczosMatchesItsKernel(_ path: KernelPath) throws {
    let w = 40, h = 36
    var rng = SplitMix(0x1a2c_2053)
    var px = [[Double]](repeating: [0, 0, 0, 0], count: w * h)
    for k in px.indices {
        let a = 0.3 + 0.7 * Double(rng.unit())
        px[k] = [Double(rng.unit()) * a, Double(rng.unit()) * a, Double(rng.unit()) * a, a].map { Double(Float($0)) }
    }
    let input = linearImage(w, h) { x, y in
        let p = px[y * w + x]
        return SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3]))
    }
    func lanczos(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if abs(x) >= 3 { return 0 }
        return sin(Double.pi * x) / (Double.pi * x) * sin(Double.pi * x / 3) / (Double.pi * x / 3)
    }
    /// (first source index, normalised weights) of output index `i` on an axis scaled by `s`.
    func taps(_ i: Int, _ s: Double) -> (Int, [Double]) {
        let centre = (Double(i) + 0.5) / s, k = min(s, 1), reach = 3 / k
        let first = Int((centre - reach - 0.5).rounded(.up)), last = Int((centre + reach - 0.5).rounded(.down))
        var weights = (first...last).map { lanczos((Double($0) + 0.5 - centre) * k) }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        return (first, weights)
    }
    for s in [2.0, 0.5] {
        let out = input.applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: s, kCIInputAspectRatioKey: 1.0])
        let expectedExtent = CGRect(x: 0, y: 0, width: Double(w) * s, height: Double(h) * s)
        #expect(out.extent == expectedExtent, "\(path) scale \(s): extent \(out.extent)")
        let got = try Rendered(out, expectedExtent)
        var checked = 0
        for oy in 0..<Int(Double(h) * s) {
            for ox in 0..<Int(Double(w) * s) where (ox * 7 + oy * 3) % 5 == 0 {
                let (x0, wx) = taps(ox, s), (y0, wy) = taps(oy, s)
                guard x0 >= 0, x0 + wx.count <= w, y0 >= 0, y0 + wy.count <= h else { continue }
                var e = [0.0, 0, 0, 0]
                for (b, vy) in wy.enumerated() {
                    for (a, vx) in wx.enumerated() {
                        let p = px[(y0 + b) * w + x0 + a]
                        for c in 0..<4 { e[c] += vx * vy * p[c] }
                    }
                }
                let g = got[ox, oy]
                let diff = (0..<4).map { abs(Double(g[$0]) - e[$0]) }.max()!
                #expect(diff <= 1e-4, "\(path) scale \(s) at \(ox),\(oy): got \(g), expected \(e)")
                checked += 1
            }
        }
        #expect(checked > 0, "\(path) scale \(s): no pixel away from the edges")
    }
}
