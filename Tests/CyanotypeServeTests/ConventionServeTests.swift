import CyanotypeCodecs
import Foundation
import Testing

/// Issue #24 over HTTP: `/render` takes `working-space` as `apply --working-space` does, and
/// reads points from the top left as the page's handles send them.
@Suite struct ServeConventions {
    /// A solid opaque PNG of one 8-bit grey value.
    func grey(_ f: Folder, _ name: String, _ w: Int, _ h: Int, _ value: UInt8) throws {
        var px = [UInt8](repeating: value, count: w * h * 4)
        for i in stride(from: 3, to: px.count, by: 4) { px[i] = 255 }
        let data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .png, options: EncodeOptions()) }
        try data.write(to: f.url.appendingPathComponent(name))
    }

    @Test func workingSpaceAndTopLeftPoints() throws {
        let f = try Folder()
        try grey(f, "g.png", 8, 6, 128)
        try grey(f, "white.png", 200, 100, 255)
        let s = try Server(root: f.url)
        defer { s.stop() }
        // colorInvert on 128: 229 in linear light (1 - 0.2158 encoded), 127 in sRGB values.
        let decoded = pow((128.0 / 255 + 0.055) / 1.055, 2.4)
        let linear = Int((255 * (1.055 * pow(1 - decoded, 1 / 2.4) - 0.055)).rounded())
        for (query, expected) in [("", linear), ("&working-space=linear", linear), ("&working-space=srgb", 127)] {
            let r = try s.get("/render?image=g.png&filter=colorInvert&format=png" + query)
            #expect(r.status == 200, "\(query): \(r.text)")
            let p = try Pixels(r.body)
            #expect(abs(Int(p.rgba[0]) - expected) <= 1, "\(query): \(p.rgba[0]) expected \(expected)")
        }
        let json = try s.post("/api/render", json: ["image": "g.png", "filters": ["colorInvert"], "workingSpace": "srgb", "format": "png"])
        #expect(json.status == 200, "\(json.text)")
        #expect(try abs(Int(Pixels(json.body).rgba[0]) - 127) <= 1)
        let bad = try s.get("/render?image=g.png&filter=colorInvert&working-space=gamma")
        #expect(bad.status == 400 && bad.text.contains("linear or srgb"), "\(bad.text)")

        // JPEG at q 90 or more is 4:4:4, below 4:2:0 (the first component's sampling factors in
        // the SOF segment, as the JPEG standard lays it out: 0x11 or 0x22).
        func sampling(_ d: Data) -> UInt8? {
            guard let sof = d.range(of: Data([0xFF, 0xC0])) ?? d.range(of: Data([0xFF, 0xC2])) else { return nil }
            return d[sof.lowerBound + 11]
        }
        for (q, factor) in [("", UInt8(0x11)), ("&q=95", 0x11), ("&q=80", 0x22)] {
            let j = try s.get("/render?image=white.png&format=jpeg" + q)
            #expect(j.status == 200 && sampling(j.body) == factor, "q '\(q)'")
        }

        // A bright disc at (40, 25) from the top left; below it (y 75) is dark.
        let spec = "vignetteEffect center=[40 25] radius=15 intensity=1 falloff=0"
        let v = try s.get("/render?image=white.png&filter=\(q(spec))&format=png")
        #expect(v.status == 200, "\(v.text)")
        let p = try Pixels(v.body)
        func red(_ x: Int, _ y: Int) -> Int { Int(p.rgba[4 * (y * p.width + x)]) }
        #expect(red(40, 25) > 200 && red(40, 75) < 60, "\(red(40, 25)) \(red(40, 75))")
    }
}
