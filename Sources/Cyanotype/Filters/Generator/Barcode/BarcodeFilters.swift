// The barcode generators. As in Core Image: one pixel per module, black modules on white,
// opaque, extent origin (0, 0); a message the symbology cannot carry makes no image
// (`outputImage` nil, `makeOutputImage()` throws `invalidValue` with the reason).

/// Light modules added on every side of a QR symbol. ISO/IEC 18004 asks for four; the
/// output is `17 + 4 * version + 2 * qrQuietZone` pixels square.
let qrQuietZone = 4

extension BuiltinFilters {
    /// CIQRCodeGenerator: Encodes message bytes as a QR code image (one pixel per module).
    static let qrCodeGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIQRCodeGenerator", "QR Code Generator", "Encodes message bytes as a QR code image (one pixel per module).",
            categories: [.builtIn, .generator, .stillImage], macOS: "10.9", iOS: "7", factory: "qrCodeGenerator", outputKeys: ["outputImage", "outputCGImage"],
            doc: """
                `inputMessage` bytes as a QR code (ISO/IEC 18004 model 2), the
                smallest of versions 1-40 that fits at `inputCorrectionLevel` (L, M, Q or H), in the
                most compact single mode for the whole message (numeric, alphanumeric, else byte; text
                is taken as its UTF-8 bytes). The mask is the one of eight with the lowest ISO penalty.
                """,
            inputs: [
                .other("NSData", "inputMessage", "Message", nil),
                .other("NSString", "inputCorrectionLevel", "Correction Level", nil, default: .string("M")),
            ]),
        barcode: BarcodeOutput(includesQuietZone: true)
    ) { args throws(CIFilterError) in
        let code = try qrCode(args)
        return code.matrix.padded(qrQuietZone).image()
    }

    static func qrCode(_ args: FilterArguments) throws(CIFilterError) -> QRCode {
        let level = try qrCorrectionLevel(args)
        return try encodingMessage(args) { message throws(QRCodeError) in try QRCode.encode(message, level: level) }
    }

    /// `inputCorrectionLevel` as a QR correction level (L, M, Q or H, in either case).
    static func qrCorrectionLevel(_ args: FilterArguments) throws(CIFilterError) -> QRCorrectionLevel {
        let letter = try args.string("inputCorrectionLevel")
        guard let level = QRCorrectionLevel(rawValue: letter.uppercased()) else {
            throw .invalidValue(filter: args.descriptor.name, key: "inputCorrectionLevel", reason: "'\(letter)' is not a correction level; use L, M, Q or H")
        }
        return level
    }

    /// `inputMessage`'s bytes through a symbology's `encode`; a message it cannot carry is a
    /// `CIFilterError.invalidValue` on `inputMessage` with the encoder's reason.
    static func encodingMessage<Code, E: Error & CustomStringConvertible>(
        _ args: FilterArguments, _ encode: ([UInt8]) throws(E) -> Code
    ) throws(CIFilterError) -> Code {
        let message = Array(try args.data("inputMessage"))
        do throws(E) {
            return try encode(message)
        } catch {
            throw .invalidValue(filter: args.descriptor.name, key: "inputMessage", reason: error.description)
        }
    }

    /// CICode128BarcodeGenerator: Encodes message bytes as a Code 128 linear barcode image.
    static let code128BarcodeGenerator = BuiltinFilter(
        FilterDescriptor(
            "CICode128BarcodeGenerator", "Code 128 Barcode Generator", "Encodes message bytes as a Code 128 linear barcode image.",
            categories: [.builtIn, .generator, .stillImage], macOS: "10.10", iOS: "8", factory: "code128BarcodeGenerator", outputKeys: ["outputImage", "outputCGImage"],
            doc: """
                `inputMessage` (ASCII bytes) as a Code 128 barcode, code
                sets A, B and C switched for the fewest symbols, with check symbol and stop pattern.
                `inputQuietSpace` light modules on the left and right, `inputBarcodeHeight` pixels
                tall: (11 * symbols + 13 + 2 * quiet) x height pixels.
                """,
            inputs: [
                .other("NSData", "inputMessage", "Message", nil),
                .number("inputQuietSpace", "Quiet Space", .integer, default: 10, min: 0, max: 100, slider: 0...20),
                .number("inputBarcodeHeight", "Barcode Height", .integer, default: 32, min: 1, max: 500, slider: 1...50),
            ]),
        barcode: BarcodeOutput(includesQuietZone: true)
    ) { args throws(CIFilterError) in
        let quiet = Int(try args.number("inputQuietSpace").rounded())
        let height = Int(try args.number("inputBarcodeHeight").rounded())
        return try encodingMessage(args) { message throws(Code128Error) in try Code128.matrix(message, quiet: quiet, height: height) }.image()
    }

    /// CIAztecCodeGenerator: Encodes message bytes as an Aztec 2D barcode image.
    static let aztecCodeGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIAztecCodeGenerator", "Aztec Code Generator", "Encodes message bytes as an Aztec 2D barcode image.",
            categories: [.builtIn, .generator, .stillImage], macOS: "10.10", iOS: "8", factory: "aztecCodeGenerator", outputKeys: ["outputImage", "outputCGImage"],
            doc: """
                `inputMessage` bytes as an Aztec symbol (ISO/IEC 24778), one
                pixel per module, no quiet zone (Aztec needs none). The smallest compact (1-4 layers)
                or full-range (4-32 layers) symbol whose check words are at least
                `inputCorrectionLevel` percent of its codewords plus three; `inputLayers` and
                `inputCompactStyle`, when set, fix the layers and style. Bytes are carried in binary
                shift runs (exact for any data, text included).
                """,
            inputs: [
                .other("NSData", "inputMessage", "Message", nil),
                .number("inputCorrectionLevel", "Correction Level", .integer, default: 23, min: 5, max: 95, slider: 5...95),
                .number("inputLayers", "Layers", .integer, min: 1, max: 32, slider: 1...32),
                .bool("inputCompactStyle", "Compact Style", min: 0, max: 1, slider: 0...1),
            ]),
        barcode: BarcodeOutput(includesQuietZone: false)
    ) { args throws(CIFilterError) in
        let level = Int(try args.number("inputCorrectionLevel").rounded())
        let layers: Int? = args.values["inputLayers"] == nil ? nil : Int(try args.number("inputLayers").rounded())
        let compact: Bool? = args.values["inputCompactStyle"] == nil ? nil : try args.bool("inputCompactStyle")
        return try encodingMessage(args) { message throws(AztecError) in
            try AztecCode.encode(message, level: level, layers: layers, compact: compact)
        }.matrix.image()
    }

    /// CIPDF417BarcodeGenerator: Encodes message bytes as a PDF417 stacked barcode image.
    static let pdf417BarcodeGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIPDF417BarcodeGenerator", "PDF417 Barcode Generator", "Encodes message bytes as a PDF417 stacked barcode image.",
            categories: [.builtIn, .generator, .stillImage, .video],
            macOS: "10.11", iOS: "9", factory: "pdf417BarcodeGenerator", outputKeys: ["outputImage", "outputCGImage"],
            doc: """
                `inputMessage` bytes as a PDF417 symbol (ISO/IEC 15438), one
                pixel per module, rows three pixels tall, inside a quiet zone of two modules. Text, byte
                and numeric compaction are mixed for the fewest codewords unless `inputCompactionMode`
                (1 numeric, 2 text, 3 byte) forces one; `inputCorrectionLevel` 0-8 gives 2^(level+1)
                check codewords (unset: ISO's recommendation for the data size). `inputRows` and
                `inputDataColumns` fix the shape, else the one nearest `inputPreferredAspectRatio`
                (width / height, 3 when unset) within the pixel limits `inputMin/MaxWidth/Height`
                (quiet zone included). `inputCompactStyle` drops the right row indicator and cuts the
                stop pattern to one bar module.
                """,
            inputs: [
                .other("NSData", "inputMessage", "Message", nil),
                .number("inputMinWidth", "Min Width", .integer, min: 56, max: 583, slider: 56...583),
                .number("inputMaxWidth", "Max Width", .integer, min: 56, max: 583, slider: 56...583),
                .number("inputMinHeight", "Min Height", .integer, min: 13, max: 283, slider: 13...283),
                .number("inputMaxHeight", "Max Height", .integer, min: 13, max: 283, slider: 13...283),
                .number("inputDataColumns", "Data Columns", .integer, min: 1, max: 30, slider: 1...30),
                .number("inputRows", "Rows", .integer, min: 3, max: 90, slider: 3...90),
                .number("inputPreferredAspectRatio", "Preferred Aspect Ratio", nil, min: 0, max: 9.223372036854776e+18, slider: 0...9.223372036854776e+18),
                .number("inputCompactionMode", "Compaction Mode", .integer, min: 0, max: 3, slider: 0...3),
                .bool("inputCompactStyle", "Compact Style", min: 0, max: 1, slider: 0...1),
                .number("inputCorrectionLevel", "Correction Level", .integer, min: 0, max: 8, slider: 0...8),
                .bool("inputAlwaysSpecifyCompaction", "Always Specify Compaction", min: 0, max: 1, slider: 0...1),
            ]),
        barcode: BarcodeOutput(includesQuietZone: true)
    ) { args throws(CIFilterError) in
        let code = try pdf417(args)
        return code.matrix.padded(pdf417QuietZone).image()
    }

    static func pdf417(_ args: FilterArguments) throws(CIFilterError) -> PDF417 {
        let message = try args.data("inputMessage")
        func integer(_ key: String) throws(CIFilterError) -> Int? {
            args.values[key] == nil ? nil : Int(try args.number(key).rounded())
        }
        var options = PDF417Options()
        options.compaction = PDF417Compaction(rawValue: try integer("inputCompactionMode") ?? 0) ?? .automatic
        options.alwaysSpecifyCompaction = args.values["inputAlwaysSpecifyCompaction"] == nil ? false : try args.bool("inputAlwaysSpecifyCompaction")
        options.compact = args.values["inputCompactStyle"] == nil ? false : try args.bool("inputCompactStyle")
        options.level = try integer("inputCorrectionLevel")
        options.rows = try integer("inputRows")
        options.columns = try integer("inputDataColumns")
        options.minWidth = try integer("inputMinWidth")
        options.maxWidth = try integer("inputMaxWidth")
        options.minHeight = try integer("inputMinHeight")
        options.maxHeight = try integer("inputMaxHeight")
        if args.values["inputPreferredAspectRatio"] != nil {
            let ratio = try args.number("inputPreferredAspectRatio")
            options.aspectRatio = ratio > 0 ? ratio : nil
        }
        do throws(PDF417Error) {
            return try PDF417.encode(Array(message), options: options)
        } catch {
            throw .invalidValue(filter: args.descriptor.name, key: error.key, reason: error.description)
        }
    }
}

extension BuiltinFilters {
    /// CIBarcodeGenerator: Renders a barcode image from a barcode descriptor object (QR, Aztec, PDF417, Data Matrix).
    static let barcodeGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIBarcodeGenerator", "Barcode Generator", "Renders a barcode image from a barcode descriptor object (QR, Aztec, PDF417, Data Matrix).",
            categories: [.builtIn, .generator, .stillImage, .video],
            macOS: "10.13", iOS: "11", factory: "barcodeGenerator",
            outputKeys: [
                "outputImage", "outputCGImageForQRCodeDescriptor", "outputCGImageForAztecCodeDescriptor", "outputCGImageForPDF417CodeDescriptor",
                "outputCGImageForDataMatrixCodeDescriptor", "outputCGImage",
            ],
            doc: """
                In Core Image, renders a `CIBarcodeDescriptor` (QR, Aztec, PDF417,
                Data Matrix) decoded from an image by Vision. Cyanotype has no barcode descriptors
                yet, so this filter accepts none: any value (or none) is a typed `invalidValue` error
                pointing at the message-based generators.
                """,
            inputs: [
                .other("CIBarcodeDescriptor", "inputBarcodeDescriptor", "Barcode Descriptor", nil)
            ]),
        barcode: BarcodeOutput(includesQuietZone: false)
    ) { args throws(CIFilterError) in
        let key = "inputBarcodeDescriptor"
        guard let v = args.values[key] else { throw .missingInput(filter: args.descriptor.name, key: key) }
        throw .invalidValue(
            filter: args.descriptor.name, key: key,
            reason:
                "barcode descriptors (\(typeName(v))) are not supported yet; use CIQRCodeGenerator, CIAztecCodeGenerator, CIPDF417BarcodeGenerator or CICode128BarcodeGenerator with inputMessage"
        )
    }
}
