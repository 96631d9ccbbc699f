import Foundation
import Testing
@testable import Cyanotype

/// Auto enhance: statistics against a direct computation, and the filters' direction.
@Suite struct AutoAdjustTests {
    /// A dull, dark image: sRGB greys 20...80 with a faint tint.
    func dark() -> CIImage {
        var p = [UInt8](repeating: 255, count: 32 * 16 * 4)
        for i in 0..<(32 * 16) {
            let v = UInt8(20 + (i * 60) / (32 * 16))
            p[4 * i] = v; p[4 * i + 1] = v; p[4 * i + 2] = v &+ 4
        }
        return image(p, 32, 16)
    }

    @Test func statisticsMatchADirectComputation() throws {
        let img = dark()
        let s = try img.autoStatistics()
        let v = try renderFloat(img, img.extent)
        let g = v.map { (0.2125 * Double($0.x) + 0.7154 * Double($0.y) + 0.0721 * Double($0.z)).squareRoot() }.sorted()
        // Nearest-rank percentiles, to the histogram's bin width (1/1024).
        func rank(_ q: Double) -> Double { g[Int((q * Double(g.count)).rounded(.up)) - 1] }
        #expect(abs(Double(s.median) - rank(0.5)) < 1.0 / 1024)
        #expect(abs(Double(s.low) - rank(0.01)) < 1.0 / 1024)
        #expect(abs(Double(s.high) - rank(0.99)) < 1.0 / 1024)
        let sat = v.reduce(0.0) { $0 + linearToSrgb(Double(max($1.x, $1.y, $1.z))) - linearToSrgb(Double(min($1.x, $1.y, $1.z))) } / Double(v.count)
        #expect(abs(Double(s.saturation) - sat) < 1e-5)
    }

    @Test func darkDullImageGetsBrighterAndMoreContrast() throws {
        let img = dark()
        let filters = img.autoAdjustmentFilters()
        let names = filters.map { $0.attributes[kCIAttributeFilterName] as? String ?? "" }
        #expect(names == ["CIExposureAdjust", "CIVibrance", "CIToneCurve"])
        #expect((filters[0].value(forKey: kCIInputEVKey) as? NSNumber)?.floatValue ?? 0 > 0)
        var out = img
        for f in filters { f.setValue(out, forKey: kCIInputImageKey); out = f.outputImage! }
        let before = try img.autoStatistics(), after = try out.autoStatistics()
        #expect(after.median > before.median)
        #expect(after.high - after.low > before.high - before.low)
        #expect(img.autoAdjustmentFilters(options: [.enhance: false]).isEmpty)
    }
}
