import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import CyanotypeCodecs

/// Whether an independent XML parser (Foundation's, libxml2 underneath) accepts `data`.
func wellFormedXML(_ data: Data) -> Bool {
    // The xpacket processing instructions are fine for XML; a BOM inside one is too.
    let parser = XMLParser(data: data)
    return parser.parse()
}

/// EXIF, XMP and ICC through every format: kept byte for byte (TIFF rebuilds its EXIF from
/// the file's own directories, so there the values are compared), read back by exiftool
/// (an independent reader), GPS removable from both EXIF and XMP.
@Suite struct MetadataTests {
    static let exiftool = "/usr/bin/exiftool"
    static var haveExiftool: Bool { FileManager.default.isExecutableFile(atPath: exiftool) }

    /// The formats this build writes.
    static let formats: [ImageFileFormat] = [.jpeg, .png, .webp, .tiff, .heif, .avif, .jxl].filter(ImageCodecs.canEncode)

    func encode(
        _ format: ImageFileFormat, exif: Data? = EXIFFixtures.withGPS, xmp: Data? = Data(EXIFFixtures.xmpWithGPS.utf8),
        icc: Data? = ColorProfiles.displayP3, orientation: Int = 1
    ) throws -> Data {
        var o = EncodeOptions()
        o.exif = exif
        o.xmp = xmp
        o.iccProfile = icc
        o.orientation = orientation
        o.lossless = format == .jxl  // lossy JPEG XL re-describes the profile (JXLTests)
        return try encode8(smoothRGBA8(width: 24, height: 16), 24, 16, alpha: false, format, o)
    }

    /// The facts of the fixture's EXIF, as the one EXIF reader sees them.
    func expectFixtureEXIF(_ exif: Data?, gps: Bool = true, _ comment: Comment) {
        guard let exif else {
            Issue.record("no EXIF: \(comment)")
            return
        }
        let e = EXIFProperties(exif)
        #expect(e.tiff["Make"] as? String == "Cyanotype" && e.tiff["Model"] as? String == "Test Cam", comment)
        #expect(e.exif["FNumber"] as? Double == 2.8 && e.exif["ISOSpeedRatings"] as? Int == 200, comment)
        #expect(e.exif["ExposureTime"] as? Double == 0.004, comment)
        if gps {
            let lat = e.gps["Latitude"] as? Double ?? 0
            #expect(abs(lat - (48 + 51.0 / 60 + 29.52 / 3600)) < 1e-9 && e.gps["LatitudeRef"] as? String == "N", comment)
            #expect(e.gps["Altitude"] as? Double == 35, comment)
        } else {
            #expect(e.gps.isEmpty, comment)
        }
    }

    @Test(arguments: MetadataTests.formats) func exifXMPAndICCSurvive(format: ImageFileFormat) throws {
        let data = try encode(format)
        let h = try ImageCodecs.readHeader(data)
        let xmp = Data(EXIFFixtures.xmpWithGPS.utf8)
        #expect(h.xmp == xmp, "\(format) XMP")
        #expect(h.iccProfile == ColorProfiles.displayP3, "\(format) ICC")
        if format == .tiff {
            expectFixtureEXIF(h.exif, "\(format)")
        } else {
            #expect(h.exif == EXIFFixtures.withGPS, "\(format) EXIF")
        }
        // The decoder reports the same, and the pixels still decode.
        let d = try ImageCodecs.decode(data)
        #expect(d.header.xmp == xmp && d.width == 24, "\(format)")
    }

    /// A big-endian EXIF block into TIFF (little-endian): values are swapped unit by unit.
    @Test func tiffMergesABigEndianBlock() throws {
        let exif = EXIFFixtures.block(bigEndian: true, orientation: 6)
        var o = EncodeOptions()
        o.exif = exif
        o.dpi = 72
        let px = smoothRGBA8(width: 9, height: 5)
        let data = try encode8(px, 9, 5, alpha: false, .tiff, o)
        let d = try ImageCodecs.decode(data)
        #expect(d.pixels == px)
        // The file's own tags win: orientation 1 and 72 dpi from the writer, not 6 and 300.
        #expect(d.header.orientation == 1 && d.header.dpi == 72)
        expectFixtureEXIF(d.header.exif, "big-endian into TIFF")
        // Read again from the TIFF the block came out of, and written again: stable.
        var again = EncodeOptions()
        again.exif = d.header.exif
        let second = try ImageCodecs.readHeader(try encode8(px, 9, 5, alpha: false, .tiff, again))
        #expect(second.exif == d.header.exif)
    }

    @Test func tiffWithoutDescriptiveTagsHasNoEXIF() throws {
        var o = EncodeOptions()
        o.dpi = 300
        o.orientation = 3
        let h = try ImageCodecs.readHeader(try encode8(smoothRGBA8(width: 4, height: 4), 4, 4, alpha: false, .tiff, o))
        #expect(h.exif == nil && h.xmp == nil && h.orientation == 3 && h.dpi == 300)
        #expect(h.formatProperties["Compression"] == .int(5) && h.formatProperties["PhotometricInterpretation"] == .int(2))
    }

    @Test func heifEXIFIsTurnedUprightWithThePixels() throws {
        guard ImageCodecs.canEncode(.heif) || ImageCodecs.canEncode(.avif) else { return }
        let format: ImageFileFormat = ImageCodecs.canEncode(.avif) ? .avif : .heif
        let data = try encode(format, exif: EXIFFixtures.block(orientation: 6))
        let h = try ImageCodecs.readHeader(data)
        let exif = try #require(h.exif)
        #expect(h.orientation == 1 && EXIFSummary(tiff: exif).orientation == 1)
    }

    @Test func jpegMetadataOrderAndLimits() throws {
        let data = try encode(.jpeg)
        // SOI, APP0 JFIF, APP1 Exif, APP1 XMP, APP2 ICC.
        var markers: [UInt8] = []
        var pos = 2
        let b = [UInt8](data)
        while pos + 4 <= b.count, b[pos] == 0xFF, b[pos + 1] != 0xDA, markers.count < 8 {
            markers.append(b[pos + 1])
            pos += 2 + (Int(b[pos + 2]) << 8 | Int(b[pos + 3]))
        }
        #expect(Array(markers.prefix(4)) == [0xE0, 0xE1, 0xE1, 0xE2])
        // An XMP packet too large for one segment is left out; the file is still written.
        let huge = Data(("<x:xmpmeta xmlns:x='adobe:ns:meta/'>" + String(repeating: " ", count: 70_000) + "</x:xmpmeta>").utf8)
        let h = try ImageCodecs.readHeader(try encode(.jpeg, xmp: huge))
        #expect(h.xmp == nil && h.exif == EXIFFixtures.withGPS)
    }

    // MARK: An independent reader

    /// exiftool's view of a file: group:tag -> value (numbers as exiftool prints them).
    func exiftool(_ data: Data, ext: String) throws -> [String: Any] {
        let dir = try ScratchDir()
        let path = dir.path("f.\(ext)")
        try data.write(to: URL(fileURLWithPath: path))
        let r = try #require(runTool(Self.exiftool, ["-j", "-G1", "-n", "-a", path]))
        #expect(r.status == 0, "\(r.err)")
        let json = try JSONSerialization.jsonObject(with: r.out) as? [[String: Any]]
        return json?.first ?? [:]
    }

    static let extensions: [ImageFileFormat: String] = [.jpeg: "jpg", .png: "png", .webp: "webp", .tiff: "tif", .heif: "heic", .avif: "avif", .jxl: "jxl"]

    @Test(
        .enabled(if: MetadataTests.haveExiftool, "exiftool (Debian libimage-exiftool-perl) is not installed"),
        arguments: MetadataTests.formats)
    func exiftoolReadsWhatWeWrite(format: ImageFileFormat) throws {
        let t = try exiftool(try encode(format), ext: Self.extensions[format]!)
        func value(_ tag: String) -> Any? { t.first { $0.key.hasSuffix(":" + tag) }?.value }
        let keys = t.keys.sorted().joined(separator: ", ")
        #expect(value("Make") as? String == "Cyanotype", "\(format): \(keys)")
        #expect(value("Model") as? String == "Test Cam", "\(format)")
        #expect(value("FNumber") as? Double == 2.8, "\(format)")
        #expect(abs((value("GPSLatitude") as? Double ?? 0) - 48.8582) < 1e-3, "\(format)")
        // XMP: the title and the exif namespace's GPS.
        #expect(t["XMP-dc:Title"] as? String == "Tour Eiffel", "\(format): \(keys)")
        #expect(t["XMP-exif:GPSAltitude"] != nil, "\(format)")
        // ICC: the profile's description. exiftool 12.57 does not read the colour of a JPEG XL
        // codestream; libjxl's own djxl writes it out as a profile (Display P3 is written as
        // JPEG XL's enumerated P3 space, so the profile is libjxl's), which exiftool reads.
        if format == .jxl {
            if JXLTests.haveDJXL {
                let dir = try ScratchDir()
                try encode(format).write(to: URL(fileURLWithPath: dir.path("a.jxl")))
                let r = try #require(runTool(JXLTests.djxl, [dir.path("a.jxl"), dir.path("a.ppm"), "--icc_out=" + dir.path("a.icc")]))
                #expect(r.status == 0, "\(r.err)")
                let icc = try exiftool(try Data(contentsOf: URL(fileURLWithPath: dir.path("a.icc"))), ext: "icc")
                let description = icc.first { $0.key.hasSuffix(":ProfileDescription") }?.value as? String ?? ""
                // libjxl's name for D65 white, the P3 ("DCI") primaries and the sRGB curve:
                // Display P3.
                #expect(description == "RGB_D65_DCI_Rel_SRG", "djxl's profile: \(description)")
            }
        } else {
            #expect((value("ProfileDescription") as? String)?.contains("P3") == true, "\(format): \(keys)")
        }
        #expect(t["ExifTool:Warning"] == nil && t["ExifTool:Error"] == nil, "\(format): \(t["ExifTool:Warning"] ?? t["ExifTool:Error"] ?? "")")
    }

    @Test(
        .enabled(if: MetadataTests.haveExiftool, "exiftool (Debian libimage-exiftool-perl) is not installed"),
        arguments: MetadataTests.formats)
    func exiftoolFindsNoGPSAfterStripping(format: ImageFileFormat) throws {
        let exif = try #require(ImageCodecs.exifRemovingGPS(EXIFFixtures.withGPS))
        let xmp = try #require(ImageCodecs.xmpRemovingGPS(Data(EXIFFixtures.xmpWithGPS.utf8)))
        let t = try exiftool(try encode(format, exif: exif, xmp: xmp), ext: Self.extensions[format]!)
        let gps = t.keys.filter { $0.lowercased().contains("gps") }
        #expect(gps.isEmpty, "\(format): \(gps)")
        #expect(t["XMP-dc:Title"] as? String == "Tour Eiffel" && t.keys.contains { $0.hasSuffix(":Make") }, "\(format)")
    }

    // MARK: Animations and pages

    /// Two frames through `FrameEncoder` with the fixture's EXIF, XMP and the P3 profile.
    func encodeFrames(_ format: ImageFileFormat) throws -> Data {
        var o = EncodeOptions()
        o.exif = EXIFFixtures.withGPS
        o.xmp = Data(EXIFFixtures.xmpWithGPS.utf8)
        o.iccProfile = ColorProfiles.displayP3
        o.lossless = true
        let e = try FrameEncoder(format: format, options: o, pageCount: 2)
        for f in 0..<2 {
            let px = smoothRGBA8(width: 12, height: 8).map { $0 ^ UInt8(f * 0x40) }
            try px.withUnsafeBufferPointer { try e.add(rgba8: $0, width: 12, height: 8, hasAlpha: false, delay: 0.2) }
        }
        return try e.finish(loopCount: 0)
    }

    /// APNG, animated WebP and TIFF pages keep the file's EXIF, XMP and ICC (in the first
    /// frame's chunks, the container's chunks, the first directory), and still hold two frames.
    @Test(arguments: [ImageFileFormat.png, .webp, .tiff]) func animationsKeepMetadata(format: ImageFileFormat) throws {
        let data = try encodeFrames(format)
        let h = try ImageCodecs.readHeader(data)
        #expect(h.xmp == Data(EXIFFixtures.xmpWithGPS.utf8), "\(format) XMP")
        #expect(h.iccProfile == ColorProfiles.displayP3, "\(format) ICC")
        expectFixtureEXIF(h.exif, "\(format)")
        let d = try FrameDecoder(data: data)
        #expect(d.sequence.frameCount == 2 && d.sequence.isAnimation == (format != .tiff), "\(format)")
        #expect(try d.frame(at: 1).width == 12, "\(format)")
        // Later TIFF pages carry the profile but report no EXIF of their own.
        if format == .tiff {
            #expect(d.sequence.header(at: 1).iccProfile == ColorProfiles.displayP3 && d.sequence.header(at: 1).exif == nil)
        }
        if Self.haveExiftool {
            let t = try exiftool(data, ext: Self.extensions[format]!)
            func value(_ tag: String) -> Any? { t.first { $0.key.hasSuffix(":" + tag) }?.value }
            let keys = t.keys.sorted().joined(separator: ", ")
            #expect(value("Make") as? String == "Cyanotype" && value("FNumber") as? Double == 2.8, "\(format): \(keys)")
            #expect(t["XMP-dc:Title"] as? String == "Tour Eiffel", "\(format): \(keys)")
            #expect((value("ProfileDescription") as? String)?.contains("P3") == true, "\(format): \(keys)")
            #expect(t["ExifTool:Warning"] == nil && t["ExifTool:Error"] == nil, "\(format): \(t["ExifTool:Warning"] ?? t["ExifTool:Error"] ?? "")")
        }
    }

    // MARK: XMP edits

    @Test func xmpGPSIsRemovedAndTheRestKept() throws {
        let xmp = Data(EXIFFixtures.xmpWithGPS.utf8)
        #expect(ImageCodecs.xmpContainsGPS(xmp))
        let clean = try #require(ImageCodecs.xmpRemovingGPS(xmp))
        let text = String(decoding: clean, as: UTF8.self)
        #expect(!text.lowercased().contains("gps"), "\(text)")
        #expect(!text.contains("48,51") && !text.contains("35/1") && !text.contains("2.3.0.0"))
        for kept in [
            "Tour Eiffel", "exif:ExposureTime=\"1/250\"", "exif:PixelXDimension", "<e2:FNumber>28/10</e2:FNumber>", "tiff:Orientation",
            "<?xpacket end=\"w\"?>",
        ] {
            #expect(text.contains(kept), "\(kept) lost")
        }
        #expect(wellFormedXML(clean))
        #expect(!ImageCodecs.xmpContainsGPS(clean) && ImageCodecs.xmpRemovingGPS(clean) == clean)
    }

    @Test func xmpVendorGPSAndNestedStructuresGoToo() throws {
        let xmp = Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/" drone-dji:GpsLatitude="+22.5" drone-dji:GpsLongitude='+113.9'
              drone-dji:FlightYawDegree="12"/>
            <rdf:Description xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" xmlns:exif="http://ns.adobe.com/exif/1.0/">
             <Iptc4xmpExt:LocationCreated><rdf:Bag><rdf:li rdf:parseType="Resource">
               <exif:GPSLatitude>22,30N</exif:GPSLatitude><Iptc4xmpExt:City>Shenzhen</Iptc4xmpExt:City>
             </rdf:li></rdf:Bag></Iptc4xmpExt:LocationCreated>
             <exif:GPSCoordinates><rdf:Seq><rdf:li><exif:GPSInner>1</exif:GPSInner></rdf:li></rdf:Seq></exif:GPSCoordinates>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let clean = try #require(ImageCodecs.xmpRemovingGPS(xmp))
        let text = String(decoding: clean, as: UTF8.self)
        #expect(!text.lowercased().contains("gps") && !text.contains("22.5") && !text.contains("113.9") && !text.contains("22,30N"))
        #expect(text.contains("FlightYawDegree=\"12\"") && text.contains("Shenzhen"))
        #expect(wellFormedXML(clean))
    }

    @Test func xmpThatCannotBeEditedSafelyIsRefused() {
        for bad in ["<a><b></a>", "<a x=\"1></a>", "<a>", "<!DOCTYPE a [<!ENTITY e 'x'>]><a/>", "<a exif:GPSLatitude='1'", "<"] {
            #expect(ImageCodecs.xmpRemovingGPS(Data(bad.utf8)) == nil, "\(bad)")
            #expect(ImageCodecs.xmpSettingOrientation(Data(bad.utf8), 1) == Data(bad.utf8))
        }
        // Not XML at all, but nothing to remove: no tags, so nothing to cut.
        #expect(ImageCodecs.xmpRemovingGPS(Data("plain text".utf8)) == Data("plain text".utf8))
        // Deep nesting stops at 512 levels.
        let deep = String(repeating: "<a>", count: 600) + String(repeating: "</a>", count: 600)
        #expect(ImageCodecs.xmpRemovingGPS(Data(deep.utf8)) == nil)
    }

    @Test func xmpOrientationAndSizeAreSetInBothForms() throws {
        let xmp = Data(EXIFFixtures.xmpWithGPS.utf8)
        let up = String(decoding: ImageCodecs.xmpSettingOrientation(xmp, 1), as: UTF8.self)
        #expect(up.contains("tiff:Orientation=\"1\"") && !up.contains("tiff:Orientation=\"6\""))
        let element = Data(
            "<r xmlns:tiff='http://ns.adobe.com/tiff/1.0/' xmlns:e='http://ns.adobe.com/exif/1.0/'><tiff:Orientation>8</tiff:Orientation><e:PixelYDimension>3000</e:PixelYDimension></r>"
                .utf8)
        let set = String(decoding: ImageCodecs.xmpSettingOrientation(element, 1), as: UTF8.self)
        #expect(set.contains("<tiff:Orientation>1</tiff:Orientation>"))
        let sized = String(decoding: ImageCodecs.xmpSettingPixelDimensions(xmp, width: 24, height: 16), as: UTF8.self)
        #expect(sized.contains("exif:PixelXDimension=\"24\""))
        let sizedElement = String(decoding: ImageCodecs.xmpSettingPixelDimensions(element, width: 24, height: 16), as: UTF8.self)
        #expect(sizedElement.contains("<e:PixelYDimension>16</e:PixelYDimension>"))
        // A prefix bound to another namespace is not touched.
        let other = Data("<r xmlns:tiff='urn:other'><tiff:Orientation>8</tiff:Orientation></r>".utf8)
        #expect(ImageCodecs.xmpSettingOrientation(other, 1) == other)
    }

    @Test func exifOrientationIsSetInEitherByteOrder() {
        for big in [false, true] {
            let e = EXIFFixtures.block(bigEndian: big, orientation: 6)
            #expect(EXIFSummary(tiff: ImageCodecs.exifSettingOrientation(e, 3)).orientation == 3)
            #expect(ImageCodecs.exifSettingOrientation(e, 9) == e)
        }
    }

    // MARK: Bad metadata

    /// A PNG whose compressed iTXt XMP inflates far beyond any packet (a zlib bomb): libspng
    /// stops inflating at its chunk limit (64 MiB); the image still decodes, without the XMP.
    @Test func pngXMPZlibBombIsCutOff() throws {
        let bomb = Self.deflateBomb(bytes: 80 << 20)
        let itxt = Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + bomb
        let ok = Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + PNGBuilder.zlibStored(Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8))
        let rows = [[UInt8](repeating: 0x80, count: 3 * 4), [UInt8](repeating: 0x40, count: 3 * 4)]
        let good = PNGBuilder.png(width: 4, height: 2, depth: 8, colorType: 2, rows: rows, extra: [PNGBuilder.chunk("iTXt", ok)])
        #expect(try ImageCodecs.readHeader(good).xmp == Data("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8))
        let png = PNGBuilder.png(width: 4, height: 2, depth: 8, colorType: 2, rows: rows, extra: [PNGBuilder.chunk("iTXt", itxt)])
        let d = try ImageCodecs.decode(png)
        #expect(d.header.xmp == nil && d.width == 4 && d.pixels[0] == 0x80)
        #expect(try ImageCodecs.readHeader(png).xmp == nil)
    }

    /// A zlib stream (fixed Huffman codes) that inflates to about `bytes` bytes of 'a' from
    /// 13 bits per 258 bytes; the Adler-32 is not computed (the inflater is cut off first).
    static func deflateBomb(bytes: Int) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var acc: UInt64 = 0, nbits = 0
        func put(_ value: UInt64, _ count: Int) {  // LSB first
            acc |= value << UInt64(nbits)
            nbits += count
            while nbits >= 8 { out.append(UInt8(acc & 0xFF)); acc >>= 8; nbits -= 8 }
        }
        func putCode(_ code: UInt64, _ count: Int) {  // Huffman codes go MSB first
            var r: UInt64 = 0
            for i in 0..<count { r |= (code >> UInt64(i) & 1) << UInt64(count - 1 - i) }
            put(r, count)
        }
        put(1, 1); put(1, 2)  // final block, fixed Huffman
        putCode(0x30 + 0x61, 8)  // literal 'a'
        for _ in 0..<(bytes / 258) {
            putCode(0b1100_0101, 8)  // length code 285: 258 bytes
            putCode(0, 5)  // distance code 0: 1 byte back
        }
        putCode(0, 7)  // end of block
        if nbits > 0 { out.append(UInt8(acc & 0xFF)) }
        return out + [0, 0, 0, 0]
    }

    @Test func metadataReadersNeverTrapOnDamagedBlocks() {
        var seed: UInt32 = 99
        let exif = [UInt8](EXIFFixtures.withGPS)
        let xmp = [UInt8](EXIFFixtures.xmpWithGPS.utf8)
        for round in 0..<400 {
            var e = exif, x = xmp
            for _ in 0..<(1 + round % 6) {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                e[Int(seed >> 8) % e.count] = UInt8(truncatingIfNeeded: seed >> 3)
                x[Int(seed >> 9) % x.count] = UInt8(truncatingIfNeeded: seed >> 5)
            }
            let cut = Int(seed % UInt32(e.count))
            for block in [Data(e), Data(e.prefix(cut))] {
                _ = EXIFProperties(block)
                _ = ImageCodecs.exifRemovingGPS(block)
                _ = ImageCodecs.exifSettingOrientation(block, 1)
                _ = ImageCodecs.tiffAddingMetadata(encodedTIFF, exif: block, xmp: nil)
                if let t = TIFFBlock([UInt8](block)) { _ = ImageCodecs.exifBlock(ofTIFFFile: t) }
            }
            for packet in [Data(x), Data(x.prefix(Int(seed % UInt32(x.count))))] {
                _ = ImageCodecs.xmpRemovingGPS(packet)
                _ = ImageCodecs.xmpSettingPixelDimensions(packet, width: 1, height: 2)
            }
        }
    }

    let encodedTIFF: Data = (try? encode8(smoothRGBA8(width: 3, height: 2), 3, 2, alpha: false, .tiff)) ?? Data()
}
