import Foundation

extension BuiltinFilters {
    /// CISpotLight: Lights the image with a directional spotlight.
    static let spotLight = BuiltinFilter(
        FilterDescriptor(
            "CISpotLight", "Spot Light", "Lights the image with a directional spotlight.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.4", iOS: "9", factory: "spotLight",
            doc: """
                The image as a flat matte surface (the plane z = 0, facing the viewer)
                lit by a spotlight at `lightPosition` aimed at `lightPointsAt`, the spot light of SVG
                and OpenGL with Lambert's diffuse reflection. For the surface point p, with `l` the
                unit vector from p to the light and `s` the unit vector of the beam (from the light
                towards where it points):
                `rgb_out = rgb * color * brightness * max(0, l.z) * max(0, -l . s)^concentration`
                (premultiplied working-space colour, alpha kept; no fall-off with distance). A light
                aimed at itself shines straight down. Output extent: the input's.
                """,
            inputs: [
                .image(),
                .vector("inputLightPosition", "Light Position", .position3, default: [400, 600, 150], "Where the light is: x, y in pixels, z its height above the image."),
                .vector("inputLightPointsAt", "Light Points At", .position3, default: [200, 200, 0], "Where the beam points (x, y, z)."),
                .number(
                    "inputBrightness", "Brightness", .distance, default: 3, identity: 1, min: 0, slider: 0...10,
                    "The light's intensity (1: the colour as it is under full light)."),
                .number(
                    "inputConcentration", "Concentration", .scalar, default: 0.1, identity: 20, min: 0.001, slider: 0.001...1.5,
                    """
                    The exponent of the beam's fall-off away from its axis (higher
                    is a tighter spot).
                    """),
                .color("inputColor", "Color", .opaqueColor, default: [1, 1, 1, 1], "The light's colour."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let position = try finite3(args, "inputLightPosition"), target = try finite3(args, "inputLightPointsAt")
        let color = straightWorking(try args.color(kCIInputColorKey))
        let stage = SpotLightStage(
            light: position, beam: target - position, brightness: try args.float("inputBrightness"),
            concentration: try args.float("inputConcentration"), color: SIMD3(color.x, color.y, color.z))
        return image.applying(stage)
    }
}

/// A three-component position (a missing z is 0), every component finite.
func finite3(_ args: FilterArguments, _ key: String) throws(CIFilterError) -> SIMD3<Float> {
    let v = try args.vector(key)
    let p = SIMD3(Float(v.count > 0 ? v.x : 0), Float(v.count > 1 ? v.y : 0), Float(v.count > 2 ? v.z : 0))
    guard p.x.isFinite, p.y.isFinite, p.z.isFinite else { throw .nonFinite(filter: args.descriptor.name, key: key) }
    return p
}

/// CISpotLight's lighting of the plane z = 0 (see the declaration).
struct SpotLightStage: ColorStage {
    let light: SIMD3<Float>
    /// The unit beam direction.
    let beam: SIMD3<Float>
    let brightness: Float, concentration: Float
    let color: SIMD3<Float>

    init(light: SIMD3<Float>, beam: SIMD3<Float>, brightness: Float, concentration: Float, color: SIMD3<Float>) {
        self.light = light
        let n = (beam * beam).sum().squareRoot()
        self.beam = n > 0 && n.isFinite ? beam / n : SIMD3(0, 0, -1)
        self.brightness = brightness; self.concentration = concentration; self.color = color
    }

    var wantsUnpremultiplied: Bool { false }
    var preservesAlpha: Bool { true }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let ly = light.y - (Float(y) + 0.5), lz = light.z
        let s = beam, k = color * brightness, e = concentration
        for i in 0..<count {
            let lx = light.x - (Float(x + i) + 0.5)
            let n = (lx * lx + ly * ly + lz * lz).squareRoot()
            guard n > 0 else { row[i] = SIMD4(0, 0, 0, row[i].w); continue }
            let inv = 1 / n
            let lambert = max(0, lz * inv)
            let cosBeam = -(lx * s.x + ly * s.y + lz * s.z) * inv
            let spot: Float = cosBeam > 0 ? Foundation.exp(e * Foundation.log(cosBeam)) : 0
            let f = k * (lambert * spot)
            let p = row[i]
            row[i] = SIMD4(p.x * f.x, p.y * f.y, p.z * f.z, p.w)
        }
    }
    var label: String { "spot light at \(light) beam \(beam)" }
}
