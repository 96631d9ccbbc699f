import Foundation

/// EXIF blocks and XMP packets written out by hand, for the metadata tests: what a phone
/// writes (camera, exposure, a position), in either byte order.
enum EXIFFixtures {
    /// IFD0: Make "Cyanotype", Model "Test Cam", Orientation `orientation`, XResolution 300,
    /// ResolutionUnit inch, DateTime, Exif and GPS pointers. Exif IFD: ExposureTime 1/250,
    /// FNumber 2.8, ISO 200, DateTimeOriginal, PixelXDimension 4000, PixelYDimension 3000.
    /// GPS IFD: 48°51'29.52"N 2°17'40.08"E, altitude 35 m.
    static func block(bigEndian: Bool = false, orientation: Int = 1, gps: Bool = true) -> Data {
        func u16(_ v: Int) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]
        }
        func u32(_ v: Int) -> [UInt8] {
            let le = (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) }
            return bigEndian ? le.reversed() : le
        }
        struct E { var tag: Int; var type: Int; var count: Int; var value: [UInt8] }
        // Lays out one IFD at `at`: entries, next offset, then out-of-line values.
        func ifd(_ entries: [E], at: Int) -> [UInt8] {
            var head = u16(entries.count)
            var tail: [UInt8] = []
            let dataStart = at + 2 + entries.count * 12 + 4
            for e in entries {
                head += u16(e.tag) + u16(e.type) + u32(e.count)
                if e.value.count <= 4 {
                    head += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
                } else {
                    head += u32(dataStart + tail.count)
                    tail += e.value
                    if tail.count % 2 == 1 { tail.append(0) }
                }
            }
            return head + u32(0) + tail
        }
        func ascii(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }
        func rational(_ n: Int, _ d: Int) -> [UInt8] { u32(n) + u32(d) }
        // Sizes first (pointers need the offsets): IFD0 at 8.
        var ifd0Entries = [
            E(tag: 0x010F, type: 2, count: 10, value: ascii("Cyanotype")),
            E(tag: 0x0110, type: 2, count: 9, value: ascii("Test Cam")),
            E(tag: 0x0112, type: 3, count: 1, value: u16(orientation)),
            E(tag: 0x011A, type: 5, count: 1, value: rational(300, 1)),
            E(tag: 0x0128, type: 3, count: 1, value: u16(2)),
            E(tag: 0x0132, type: 2, count: 20, value: ascii("2024:05:06 07:08:09")),
            E(tag: 0x8769, type: 4, count: 1, value: u32(0)),
        ]
        if gps { ifd0Entries.append(E(tag: 0x8825, type: 4, count: 1, value: u32(0))) }
        let exifEntries = [
            E(tag: 0x829A, type: 5, count: 1, value: rational(1, 250)),
            E(tag: 0x829D, type: 5, count: 1, value: rational(28, 10)),
            E(tag: 0x8827, type: 3, count: 1, value: u16(200)),
            E(tag: 0x9003, type: 2, count: 20, value: ascii("2024:05:06 07:08:09")),
            E(tag: 0xA002, type: 4, count: 1, value: u32(4000)),
            E(tag: 0xA003, type: 4, count: 1, value: u32(3000)),
        ]
        let gpsEntries = [
            E(tag: 0x0000, type: 1, count: 4, value: [2, 3, 0, 0]),
            E(tag: 0x0001, type: 2, count: 2, value: ascii("N")),
            E(tag: 0x0002, type: 5, count: 3, value: rational(48, 1) + rational(51, 1) + rational(2952, 100)),
            E(tag: 0x0003, type: 2, count: 2, value: ascii("E")),
            E(tag: 0x0004, type: 5, count: 3, value: rational(2, 1) + rational(17, 1) + rational(4008, 100)),
            E(tag: 0x0006, type: 5, count: 1, value: rational(35, 1)),
        ]
        let ifd0Size = ifd(ifd0Entries, at: 8).count
        let exifAt = 8 + ifd0Size
        let exifSize = ifd(exifEntries, at: exifAt).count
        let gpsAt = exifAt + exifSize
        ifd0Entries[6].value = u32(exifAt)
        if gps { ifd0Entries[7].value = u32(gpsAt) }
        var b: [UInt8] = bigEndian ? Array("MM".utf8) + [0, 42] : Array("II".utf8) + [42, 0]
        b += u32(8)
        b += ifd(ifd0Entries, at: 8)
        b += ifd(exifEntries, at: exifAt)
        if gps { b += ifd(gpsEntries, at: gpsAt) }
        return Data(b)
    }

    static let withGPS = block()

    /// An XMP packet as Lightroom writes one: GPS both as attributes and as elements, an
    /// orientation, a title with nested structure, and a second namespace prefix bound to exif.
    static let xmpWithGPS = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Cyanotype tests">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
            xmlns:exif="http://ns.adobe.com/exif/1.0/"
            xmlns:dc="http://purl.org/dc/elements/1.1/"
            tiff:Orientation="6"
            exif:PixelXDimension="4000"
            exif:GPSLatitude="48,51.492N"
            exif:GPSLongitude='2,17.668E'
            exif:ExposureTime="1/250">
           <exif:GPSAltitude>35/1</exif:GPSAltitude>
           <exif:GPSTimeStamp>2024-05-06T07:08:09Z</exif:GPSTimeStamp>
           <dc:title>
            <rdf:Alt>
             <rdf:li xml:lang="x-default">Tour Eiffel</rdf:li>
            </rdf:Alt>
           </dc:title>
          </rdf:Description>
          <rdf:Description rdf:about="" xmlns:e2="http://ns.adobe.com/exif/1.0/">
           <e2:GPSVersionID>2.3.0.0</e2:GPSVersionID>
           <e2:GPSDestLatitude/>
           <e2:FNumber>28/10</e2:FNumber>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
}
