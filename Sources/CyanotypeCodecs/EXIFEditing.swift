import Foundation

// Small, bounds-checked edits of a TIFF-structured EXIF block ("II*\0" / "MM\0*"), for
// writers that keep a file's EXIF but change its pixels or its privacy: drop the GPS
// directory, update the pixel dimensions. Self-contained: it reads only the entries it edits.

extension ImageCodecs {
    /// `exif` without its GPS directory: IFD0's GPSInfo entry removed and every byte of the GPS
    /// IFD (entries and out-of-line values) zeroed, so no coordinate survives in the block.
    /// Returns `exif` unchanged when it has no GPS entry, and nil when the block is malformed
    /// (a caller that must not leak a location should then drop the EXIF block).
    public static func exifRemovingGPS(_ exif: Data) -> Data? {
        var b = [UInt8](exif)
        guard let t = TIFFBlock(b), let first = t.firstIFD, let ifd0 = t.directory(at: first) else { return nil }
        guard let gpsIndex = ifd0.entries.firstIndex(where: { $0.tag == 0x8825 }) else { return exif }
        let gpsOffset = t.u32(ifd0.entries[gpsIndex].valueAt) ?? 0
        if let gps = t.directory(at: gpsOffset) {
            // Out-of-line values first, then the directory itself.
            for e in gps.entries where e.byteCount > 4 {
                guard let at = t.u32(e.valueAt) else { return nil }
                guard at >= 0, at + e.byteCount <= b.count else { return nil }
                for i in at..<(at + e.byteCount) { b[i] = 0 }
            }
            for i in gps.start..<gps.end { b[i] = 0 }
        } else if gpsOffset != 0 {
            return nil
        }
        // Remove the entry: later entries and the next-IFD offset move down by 12 bytes.
        let entryStart = ifd0.start + 2 + 12 * gpsIndex
        let moveFrom = entryStart + 12, moveEnd = ifd0.end  // entries after it + the 4-byte next offset
        for i in moveFrom..<moveEnd { b[i - 12] = b[i] }
        for i in (moveEnd - 12)..<moveEnd { b[i] = 0 }
        t.put16(&b, ifd0.start, UInt16(ifd0.entries.count - 1))
        return Data(b)
    }

    /// Whether `exif` has a GPS directory (IFD0's GPSInfo entry).
    public static func exifContainsGPS(_ exif: Data) -> Bool {
        let b = [UInt8](exif)
        guard let t = TIFFBlock(b), let first = t.firstIFD, let ifd0 = t.directory(at: first) else { return false }
        return ifd0.entries.contains { $0.tag == 0x8825 }
    }

    /// `exif` with the EXIF IFD's PixelXDimension and PixelYDimension (when present) set to
    /// `width` and `height`, for pixels that were resized or cropped; unchanged when it has
    /// neither or is malformed.
    public static func exifSettingPixelDimensions(_ exif: Data, width: Int, height: Int) -> Data {
        var b = [UInt8](exif)
        guard let t = TIFFBlock(b), let first = t.firstIFD, let ifd0 = t.directory(at: first),
            let pointer = ifd0.entries.first(where: { $0.tag == 0x8769 }),
            let exifOffset = t.u32(pointer.valueAt), let exifIFD = t.directory(at: exifOffset)
        else { return exif }
        for e in exifIFD.entries where e.count == 1 && (e.tag == 0xA002 || e.tag == 0xA003) {
            let v = e.tag == 0xA002 ? width : height
            switch e.type {
            case 3: t.put16(&b, e.valueAt, UInt16(clamping: v))
            case 4: t.put32(&b, e.valueAt, UInt32(clamping: v))
            default: continue
            }
        }
        return Data(b)
    }
}
