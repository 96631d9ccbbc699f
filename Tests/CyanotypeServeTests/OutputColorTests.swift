import CyanotypeCodecs
import Foundation
import Testing

/// The server writes GIF as the CLI does (issue #24): a Display P3 picture is converted to sRGB,
/// the space a GIF, which holds no profile, is read in.
@Suite struct ServedGIFColour {
    /// sRGB 8-bit codes for Display P3 codes (same curve, P3 primaries): decode, the P3 -> sRGB
    /// matrix (D65 both), encode.
    static func srgb(fromP3 c: [Double]) -> [Int] {
        func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func encoded(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
        let l = c.map { linear($0 / 255) }
        let m = [[1.2249, -0.2247, 0], [-0.0420, 1.0419, 0], [-0.0197, -0.0786, 1.0979]]
        return m.map { row in Int((encoded(min(max(zip(row, l).map(*).reduce(0, +), 0), 1)) * 255).rounded()) }
    }

    @Test func displayP3IsServedAsSRGBInGIF() throws {
        let f = try Folder()
        var o = EncodeOptions()
        o.iccProfile = ColorProfiles.displayP3
        let px = [UInt8]((0..<64).flatMap { _ in [200, 60, 60, 255] as [UInt8] })
        let data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: 8, height: 8, hasAlpha: false, format: .png, options: o) }
        try data.write(to: f.url.appendingPathComponent("p3.png"))
        let s = try Server(root: f.url)
        defer { s.stop() }
        let expected = Self.srgb(fromP3: [200, 60, 60])
        #expect(expected == [218, 42, 52] || expected == [217, 42, 52], "the formula: \(expected)")
        for (label, reply) in [("GET", try s.get("/render?image=p3.png&format=gif")), ("POST", try s.post("/api/render", json: ["image": "p3.png", "format": "gif"]))] {
            try #require(reply.status == 200, "\(label): \(reply.status)")
            let centre = Array(try Pixels(reply.body).rgba[(4 * 36)..<(4 * 36 + 3)]).map(Int.init)
            #expect(zip(centre, expected).allSatisfy { abs($0 - $1) <= 2 }, "\(label): \(centre), expected \(expected)")
        }
    }
}
