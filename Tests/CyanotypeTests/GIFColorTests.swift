import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

/// GIF holds no colour profile, so whatever space the pixels come in, a GIF is written in sRGB
/// (issue #24): through `CIContext.encode` and through `CGImageDestination`, still and animated.
@Suite struct GIFColorTests {
    /// Display P3 (200, 60, 60) in sRGB by the formula: decode, the P3 -> sRGB matrix, encode.
    static let expected: [Int] = {
        func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func encoded(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
        let l = [200.0, 60, 60].map { linear($0 / 255) }
        let m = [[1.2249, -0.2247, 0], [-0.0420, 1.0419, 0], [-0.0197, -0.0786, 1.0979]]
        return m.map { row in Int((encoded(min(max(zip(row, l).map(*).reduce(0, +), 0), 1)) * 255).rounded()) }
    }()

    /// An 8x8 CGImage of P3 (200, 60, 60).
    func p3Image() -> CGImage {
        let px = Data((0..<64).flatMap { _ in [200, 60, 60, 255] as [UInt8] })
        return CGImage(
            width: 8, height: 8, bytesPerRow: 32, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.displayP3),
            premultiplied: false, data: px)
    }

    func centre(_ gif: Data) throws -> [Int] {
        let b = try ImageCodecs.decode(gif)
        let i = 4 * (4 * b.width + 4)
        return b.pixels[i..<i + 3].map(Int.init)
    }

    func close(_ a: [Int]) -> Bool { zip(a, Self.expected).allSatisfy { abs($0 - $1) <= 2 } }

    @Test func everyGIFWriterConvertsDisplayP3ToSRGB() throws {
        #expect(Self.expected == [218, 42, 52] || Self.expected == [217, 42, 52], "the formula: \(Self.expected)")
        let image = p3Image()
        // CIContext.encode, asked for P3.
        let encoded = try CIContext().encode(CIImage(cgImage: image), as: .gif, colorSpace: CGColorSpace(name: CGColorSpace.displayP3))
        let viaEncode = try centre(encoded)
        #expect(close(viaEncode), "CIContext.encode: \(viaEncode)")
        // CGImageDestination: one image, then two frames.
        for count in [1, 2] {
            let data = NSMutableData()
            let destination = try #require(CGImageDestinationCreateWithData(data, "com.compuserve.gif" as CFString, count, nil))
            for _ in 0..<count { CGImageDestinationAddImage(destination, image, nil) }
            #expect(CGImageDestinationFinalize(destination))
            let got = try centre(data as Data)
            #expect(close(got), "CGImageDestination, \(count) frame(s): \(got)")
        }
        #expect(ImageFileFormat.gif.holdsColorProfile == false && ImageFileFormat.png.holdsColorProfile)
    }
}
