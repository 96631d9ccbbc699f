import Foundation

// CIRoundedQRCodeGenerator: a QR code drawn at `scale` pixels per module with dots for data
// modules, rounded or circular finder markers, two colours and an optional empty centre
// (for a logo), antialiased over one pixel.

extension BuiltinFilters {
    /// CIRoundedQRCodeGenerator: QR code generator with rounded modules, finder markers, colors and optional center space.
    static let roundedQRCodeGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIRoundedQRCodeGenerator", "Rounded QR Code Generator", "QR code generator with rounded modules, finder markers, colors and optional center space.",
            categories: [.builtIn, .generator, .stillImage], macOS: "26.0", iOS: "26", factory: "roundedQRCodeGenerator", outputKeys: ["outputImage", "outputCGImage"],
            doc: """
                The QR code of CIQRCodeGenerator, `inputScale` pixels per
                module with a 4-module quiet zone, `color1` marks on `color0`.
                """,
            inputs: [
                .other("NSData", "inputMessage", "Message", nil),
                .other("NSString", "inputCorrectionLevel", "Correction Level", nil, default: .string("M")),
                .number("inputScale", "Scale", .scalar, default: 16, min: 8, max: 64, slider: 16...32),
                .number("inputRoundedMarkers", "Rounded Markers", .integer, default: 1, min: 0, max: 2, "Finder markers 0 square, 1 rounded squares, 2 circles."),
                .bool("inputRoundedData", "Rounded Data", default: true, min: 0, max: 1, "Data modules as discs of one module diameter (else squares)."),
                .number(
                    "inputCenterSpaceSize", "Center Space Size", .scalar, default: 0.25, min: 0, max: 0.3333333333333333, slider: 0.2...0.3333333333333333,
                    """
                    A centred square of that fraction of the symbol's side is
                    left empty. Its modules are errors for a reader, so the correction level is raised
                    (from the one asked for, up to H) until every Reed-Solomon block can correct the
                    codewords the space touches with one codeword to spare; if even H cannot, the space
                    shrinks until it can.
                    """),
                .color("inputColor0", "Color 0", .color, default: [1, 1, 1, 1]),
                .color("inputColor1", "Color 1", .color, default: [0, 0, 0, 1]),
            ]),
        barcode: BarcodeOutput(includesQuietZone: true)
    ) { args throws(CIFilterError) in
        let message = Array(try args.data("inputMessage"))
        let asked = try qrCorrectionLevel(args)
        let scale = try args.float("inputScale")
        let markers = Int(try args.number("inputRoundedMarkers").rounded())
        let roundedData = try args.bool("inputRoundedData")
        let space = try args.number("inputCenterSpaceSize")
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue

        func wantedSide(_ n: Int) -> Int {
            var side = Int((space * Double(n)).rounded())
            if side > 0 && (n - side) % 2 != 0 { side -= 1 }
            return max(0, side)
        }
        var chosen: (QRCode, Int)?, last: QRCode?
        for level in QRCorrectionLevel.allCases where level.index >= asked.index {
            guard let code = try? QRCode.encode(message, level: level) else { break }
            last = code
            let side = wantedSide(code.matrix.width)
            if RoundedQR.survives(code, clearing: side) { chosen = (code, side); break }
        }
        if chosen == nil, let code = last {
            var side = wantedSide(code.matrix.width)
            while side > 0 && !RoundedQR.survives(code, clearing: side) { side -= 2 }
            chosen = (code, side)
        }
        guard let (code, side) = chosen else {
            throw .invalidValue(filter: args.descriptor.name, key: "inputMessage", reason: QRCodeError.messageTooLong(bytes: message.count, level: asked).description)
        }
        let stage = RoundedQR(code: code, clear: side, quiet: qrQuietZone, scale: scale, markers: markers, roundedData: roundedData, c0: c0, c1: c1)
        let px = CGFloat(Float(stage.size) * scale).rounded(.up)
        return CIImage(node: GeneratorNode(stage: stage, extent: CGRect(x: 0, y: 0, width: px, height: px)))
    }
}

struct RoundedQR: GeneratorStage {
    let size: Int  // modules, quiet zone included
    let quiet: Int, symbol: Int
    let dark: [UInt8]  // per module with quiet zone: 1 dark data module
    let scale: Float, markers: Int, roundedData: Bool
    let c0: SIMD4<Float>, c1: SIMD4<Float>

    /// Whether every block can still correct the codewords touched by a centred empty
    /// square of `side` modules, one codeword to spare.
    static func survives(_ code: QRCode, clearing side: Int) -> Bool {
        guard side > 0 else { return true }
        let n = code.matrix.width, lo = (n - side) / 2
        let blockOf = QRCode.blockOfCodeword(version: code.version, level: code.level)
        let ecLen = QRCode.eccPerBlock[code.level.index][code.version]
        var touched = Set<Int>()
        for y in lo..<(lo + side) { for x in lo..<(lo + side) where code.codewordOfModule[y * n + x] >= 0 { touched.insert(code.codewordOfModule[y * n + x]) } }
        var perBlock = [Int: Int]()
        for t in touched { perBlock[blockOf[t], default: 0] += 1 }
        return perBlock.values.allSatisfy { $0 <= ecLen / 2 - 1 }
    }

    init(code: QRCode, clear side: Int, quiet: Int, scale: Float, markers: Int, roundedData: Bool, c0: SIMD4<Float>, c1: SIMD4<Float>) {
        let n = code.matrix.width
        symbol = n
        self.quiet = quiet
        size = n + 2 * quiet
        let lo = (n - side) / 2
        var d = [UInt8](repeating: 0, count: size * size)
        for y in 0..<n {
            for x in 0..<n where code.matrix[x, y] {
                let cleared = side > 0 && x >= lo && x < lo + side && y >= lo && y < lo + side && code.codewordOfModule[y * n + x] >= 0
                if !cleared { d[(y + quiet) * size + x + quiet] = 1 }
            }
        }
        dark = d
        self.scale = scale
        self.markers = markers
        self.roundedData = roundedData
        self.c0 = c0
        self.c1 = c1
    }

    /// The top-left corner (in modules, quiet zone included) of the finder marker holding
    /// module (mx, my), if any.
    @inline(__always) func marker(_ mx: Int, _ my: Int) -> (Int, Int)? {
        let a = quiet, b = quiet + symbol - 7
        for (ox, oy) in [(a, a), (b, a), (a, b)] where mx >= ox && mx < ox + 7 && my >= oy && my < oy + 7 { return (ox, oy) }
        return nil
    }

    /// Signed distance (modules) to a square of half-side h centred at the origin with
    /// corner radius r.
    @inline(__always) static func box(_ x: Float, _ y: Float, _ h: Float, _ r: Float) -> Float {
        let qx = abs(x) - (h - r), qy = abs(y) - (h - r)
        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        return outside + min(max(qx, qy), 0) - r
    }

    /// Marker coverage at (x, y) modules from the marker's centre, as a signed distance.
    @inline(__always) func markerDistance(_ x: Float, _ y: Float) -> Float {
        switch markers {
        case 2:
            let d = (x * x + y * y).squareRoot()
            return min(max(d - 3.5, 2.5 - d), d - 1.5)
        case 1:
            return min(max(Self.box(x, y, 3.5, 1.75), -Self.box(x, y, 2.5, 1)), Self.box(x, y, 1.5, 0.75))
        default:
            return min(max(Self.box(x, y, 3.5, 0), -Self.box(x, y, 2.5, 0)), Self.box(x, y, 1.5, 0))
        }
    }

    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let inv = 1 / scale
        let v = (Float(size) * scale - (Float(y) + 0.5)) * inv  // modules from the top
        let my = Int(v.rounded(.down))
        for i in 0..<count {
            let u = (Float(x + i) + 0.5) * inv
            let mx = Int(u.rounded(.down))
            var cover: Float = 0
            if mx >= 0, my >= 0, mx < size, my < size {
                if let (ox, oy) = marker(mx, my) {
                    cover = clamp01(0.5 - markerDistance(u - Float(ox) - 3.5, v - Float(oy) - 3.5) * scale)
                } else if dark[my * size + mx] != 0 {
                    if roundedData {
                        let dx = u - Float(mx) - 0.5, dy = v - Float(my) - 0.5
                        cover = clamp01(0.5 - ((dx * dx + dy * dy).squareRoot() - 0.5) * scale)
                    } else {
                        cover = 1
                    }
                }
            }
            out[i] = c0 + (c1 - c0) * cover
        }
    }
    var label: String { "rounded QR \(symbol) modules at \(scale) px" }
}
