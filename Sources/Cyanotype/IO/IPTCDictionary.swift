// Image I/O's `{IPTC}` dictionary: the IPTC-IIM records of a JPEG (APP13), read into Image
// I/O's key names. Repeatable records (keywords, bylines, ...) are arrays of strings, as Image
// I/O gives them. Writing IPTC is not supported.

/// The IPTC dictionary (`properties[kCGImagePropertyIPTCDictionary]`).
public let kCGImagePropertyIPTCDictionary = "{IPTC}"
/// IPTC 2:05, the object name (title).
public let kCGImagePropertyIPTCObjectName = "ObjectName"
/// IPTC 2:10, urgency.
public let kCGImagePropertyIPTCUrgency = "Urgency"
/// IPTC 2:15, category.
public let kCGImagePropertyIPTCCategory = "Category"
/// IPTC 2:20, supplemental categories (an array).
public let kCGImagePropertyIPTCSupplementalCategory = "SupplementalCategory"
/// IPTC 2:25, keywords (an array).
public let kCGImagePropertyIPTCKeywords = "Keywords"
/// IPTC 2:40, special instructions.
public let kCGImagePropertyIPTCSpecialInstructions = "SpecialInstructions"
/// IPTC 2:55, date created (CCYYMMDD).
public let kCGImagePropertyIPTCDateCreated = "DateCreated"
/// IPTC 2:60, time created (HHMMSS±HHMM).
public let kCGImagePropertyIPTCTimeCreated = "TimeCreated"
/// IPTC 2:65, the originating program.
public let kCGImagePropertyIPTCOriginatingProgram = "OriginatingProgram"
/// IPTC 2:70, the program's version.
public let kCGImagePropertyIPTCProgramVersion = "ProgramVersion"
/// IPTC 2:80, bylines (creators; an array).
public let kCGImagePropertyIPTCByline = "Byline"
/// IPTC 2:85, the bylines' titles (an array).
public let kCGImagePropertyIPTCBylineTitle = "BylineTitle"
/// IPTC 2:90, city.
public let kCGImagePropertyIPTCCity = "City"
/// IPTC 2:92, sub-location.
public let kCGImagePropertyIPTCSubLocation = "SubLocation"
/// IPTC 2:95, province or state.
public let kCGImagePropertyIPTCProvinceState = "Province/State"
/// IPTC 2:100, country code.
public let kCGImagePropertyIPTCCountryPrimaryLocationCode = "Country/PrimaryLocationCode"
/// IPTC 2:101, country name.
public let kCGImagePropertyIPTCCountryPrimaryLocationName = "Country/PrimaryLocationName"
/// IPTC 2:103, the original transmission reference.
public let kCGImagePropertyIPTCOriginalTransmissionReference = "OriginalTransmissionReference"
/// IPTC 2:105, headline.
public let kCGImagePropertyIPTCHeadline = "Headline"
/// IPTC 2:110, credit.
public let kCGImagePropertyIPTCCredit = "Credit"
/// IPTC 2:115, source.
public let kCGImagePropertyIPTCSource = "Source"
/// IPTC 2:116, copyright notice.
public let kCGImagePropertyIPTCCopyrightNotice = "CopyrightNotice"
/// IPTC 2:118, contact (an array).
public let kCGImagePropertyIPTCContact = "Contact"
/// IPTC 2:120, caption or abstract (the description).
public let kCGImagePropertyIPTCCaptionAbstract = "Caption/Abstract"
/// IPTC 2:122, the caption's writer or editor (an array).
public let kCGImagePropertyIPTCWriterEditor = "Writer/Editor"
/// IPTC 2:00, the record version.
public let kCGImagePropertyIPTCRecordVersion = "RecordVersion"

/// Reading IPTC-IIM records into Image I/O's `{IPTC}` dictionary.
enum IPTCDictionary {
    /// Record 2 datasets with their Image I/O names; `true` marks repeatable ones (arrays).
    static let names: [UInt8: (String, Bool)] = [
        5: (kCGImagePropertyIPTCObjectName, false), 10: (kCGImagePropertyIPTCUrgency, false), 15: (kCGImagePropertyIPTCCategory, false),
        20: (kCGImagePropertyIPTCSupplementalCategory, true), 25: (kCGImagePropertyIPTCKeywords, true),
        40: (kCGImagePropertyIPTCSpecialInstructions, false), 55: (kCGImagePropertyIPTCDateCreated, false),
        60: (kCGImagePropertyIPTCTimeCreated, false), 65: (kCGImagePropertyIPTCOriginatingProgram, false),
        70: (kCGImagePropertyIPTCProgramVersion, false), 80: (kCGImagePropertyIPTCByline, true), 85: (kCGImagePropertyIPTCBylineTitle, true),
        90: (kCGImagePropertyIPTCCity, false), 92: (kCGImagePropertyIPTCSubLocation, false), 95: (kCGImagePropertyIPTCProvinceState, false),
        100: (kCGImagePropertyIPTCCountryPrimaryLocationCode, false), 101: (kCGImagePropertyIPTCCountryPrimaryLocationName, false),
        103: (kCGImagePropertyIPTCOriginalTransmissionReference, false), 105: (kCGImagePropertyIPTCHeadline, false),
        110: (kCGImagePropertyIPTCCredit, false), 115: (kCGImagePropertyIPTCSource, false), 116: (kCGImagePropertyIPTCCopyrightNotice, false),
        118: (kCGImagePropertyIPTCContact, true), 120: (kCGImagePropertyIPTCCaptionAbstract, false), 122: (kCGImagePropertyIPTCWriterEditor, true),
    ]

    /// The dictionary of `records` (a run of 0x1C tag markers), nil when none is named.
    /// Text is UTF-8 when it decodes as such, else Latin-1; damaged data ends the read.
    static func parse(_ records: Data) -> [String: Any]? {
        let b = [UInt8](records)
        var out: [String: Any] = [:]
        var i = 0
        while i + 5 <= b.count, b[i] == 0x1C {
            let record = b[i + 1], dataset = b[i + 2]
            let size = Int(b[i + 3]) << 8 | Int(b[i + 4])
            guard size < 0x8000, i + 5 + size <= b.count else { break }  // extended sizes are not used for text
            let bytes = Array(b[(i + 5)..<(i + 5 + size)])
            i += 5 + size
            guard record == 2 else { continue }
            if dataset == 0, bytes.count == 2 {
                out[kCGImagePropertyIPTCRecordVersion] = Int(bytes[0]) << 8 | Int(bytes[1])
                continue
            }
            guard let (name, repeatable) = names[dataset] else { continue }
            let text = String(validating: bytes, as: UTF8.self) ?? String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
            if repeatable {
                out[name] = ((out[name] as? [String]) ?? []) + [text]
            } else {
                out[name] = text
            }
        }
        return out.isEmpty ? nil : out
    }
}
