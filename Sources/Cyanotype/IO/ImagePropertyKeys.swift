#if !canImport(CoreGraphics)
// Image I/O's key names for every TIFF, Exif and GPS tag Cyanotype's EXIF reader names
// (`EXIFProperties`' tables in CyanotypeCodecs), so `exif[kCGImagePropertyExifDateTimeDigitized]` and the
// like read what the file holds. Keys declared elsewhere (ImageProperties.swift) are not repeated;
// on Apple's platforms Image I/O declares them all.
// MARK: {TIFF}
/// `{TIFF}`: the value of tag 0x010D as the file holds it.
public let kCGImagePropertyTIFFDocumentName = "DocumentName"
/// `{TIFF}`: the value of tag 0x010E as the file holds it.
public let kCGImagePropertyTIFFImageDescription = "ImageDescription"
/// `{TIFF}`: the value of tag 0x011A as the file holds it.
public let kCGImagePropertyTIFFXResolution = "XResolution"
/// `{TIFF}`: the value of tag 0x011B as the file holds it.
public let kCGImagePropertyTIFFYResolution = "YResolution"
/// `{TIFF}`: the value of tag 0x0128 as the file holds it.
public let kCGImagePropertyTIFFResolutionUnit = "ResolutionUnit"
/// `{TIFF}`: the value of tag 0x012D as the file holds it.
public let kCGImagePropertyTIFFTransferFunction = "TransferFunction"
/// `{TIFF}`: the value of tag 0x013B as the file holds it.
public let kCGImagePropertyTIFFArtist = "Artist"
/// `{TIFF}`: the value of tag 0x013C as the file holds it.
public let kCGImagePropertyTIFFHostComputer = "HostComputer"
/// `{TIFF}`: the value of tag 0x013E as the file holds it.
public let kCGImagePropertyTIFFWhitePoint = "WhitePoint"
/// `{TIFF}`: the value of tag 0x013F as the file holds it.
public let kCGImagePropertyTIFFPrimaryChromaticities = "PrimaryChromaticities"
/// `{TIFF}`: the value of tag 0x0142 as the file holds it.
public let kCGImagePropertyTIFFTileWidth = "TileWidth"
/// `{TIFF}`: the value of tag 0x0143 as the file holds it.
public let kCGImagePropertyTIFFTileLength = "TileLength"
/// `{TIFF}`: the value of tag 0x8298 as the file holds it.
public let kCGImagePropertyTIFFCopyright = "Copyright"
// MARK: {Exif}
/// `{Exif}`: the value of tag 0x8822 as the file holds it.
public let kCGImagePropertyExifExposureProgram = "ExposureProgram"
/// `{Exif}`: the value of tag 0x8824 as the file holds it.
public let kCGImagePropertyExifSpectralSensitivity = "SpectralSensitivity"
/// `{Exif}`: the value of tag 0x8828 as the file holds it.
public let kCGImagePropertyExifOECF = "OECF"
/// `{Exif}`: the value of tag 0x8830 as the file holds it.
public let kCGImagePropertyExifSensitivityType = "SensitivityType"
/// `{Exif}`: the value of tag 0x8831 as the file holds it.
public let kCGImagePropertyExifStandardOutputSensitivity = "StandardOutputSensitivity"
/// `{Exif}`: the value of tag 0x8832 as the file holds it.
public let kCGImagePropertyExifRecommendedExposureIndex = "RecommendedExposureIndex"
/// `{Exif}`: the value of tag 0x8833 as the file holds it.
public let kCGImagePropertyExifISOSpeed = "ISOSpeed"
/// `{Exif}`: the value of tag 0x8834 as the file holds it.
public let kCGImagePropertyExifISOSpeedLatitudeyyy = "ISOSpeedLatitudeyyy"
/// `{Exif}`: the value of tag 0x8835 as the file holds it.
public let kCGImagePropertyExifISOSpeedLatitudezzz = "ISOSpeedLatitudezzz"
/// `{Exif}`: the value of tag 0x9000 as the file holds it.
public let kCGImagePropertyExifExifVersion = "ExifVersion"
/// `{Exif}`: the value of tag 0x9004 as the file holds it.
public let kCGImagePropertyExifDateTimeDigitized = "DateTimeDigitized"
/// `{Exif}`: the value of tag 0x9010 as the file holds it.
public let kCGImagePropertyExifOffsetTime = "OffsetTime"
/// `{Exif}`: the value of tag 0x9011 as the file holds it.
public let kCGImagePropertyExifOffsetTimeOriginal = "OffsetTimeOriginal"
/// `{Exif}`: the value of tag 0x9012 as the file holds it.
public let kCGImagePropertyExifOffsetTimeDigitized = "OffsetTimeDigitized"
/// `{Exif}`: the value of tag 0x9101 as the file holds it.
public let kCGImagePropertyExifComponentsConfiguration = "ComponentsConfiguration"
/// `{Exif}`: the value of tag 0x9102 as the file holds it.
public let kCGImagePropertyExifCompressedBitsPerPixel = "CompressedBitsPerPixel"
/// `{Exif}`: the value of tag 0x9201 as the file holds it.
public let kCGImagePropertyExifShutterSpeedValue = "ShutterSpeedValue"
/// `{Exif}`: the value of tag 0x9202 as the file holds it.
public let kCGImagePropertyExifApertureValue = "ApertureValue"
/// `{Exif}`: the value of tag 0x9203 as the file holds it.
public let kCGImagePropertyExifBrightnessValue = "BrightnessValue"
/// `{Exif}`: the value of tag 0x9204 as the file holds it.
public let kCGImagePropertyExifExposureBiasValue = "ExposureBiasValue"
/// `{Exif}`: the value of tag 0x9205 as the file holds it.
public let kCGImagePropertyExifMaxApertureValue = "MaxApertureValue"
/// `{Exif}`: the value of tag 0x9206 as the file holds it.
public let kCGImagePropertyExifSubjectDistance = "SubjectDistance"
/// `{Exif}`: the value of tag 0x9207 as the file holds it.
public let kCGImagePropertyExifMeteringMode = "MeteringMode"
/// `{Exif}`: the value of tag 0x9208 as the file holds it.
public let kCGImagePropertyExifLightSource = "LightSource"
/// `{Exif}`: the value of tag 0x9209 as the file holds it.
public let kCGImagePropertyExifFlash = "Flash"
/// `{Exif}`: the value of tag 0x9214 as the file holds it.
public let kCGImagePropertyExifSubjectArea = "SubjectArea"
/// `{Exif}`: the value of tag 0x927C as the file holds it.
public let kCGImagePropertyExifMakerNote = "MakerNote"
/// `{Exif}`: the value of tag 0x9286 as the file holds it.
public let kCGImagePropertyExifUserComment = "UserComment"
/// `{Exif}`: the value of tag 0x9290 as the file holds it.
public let kCGImagePropertyExifSubsecTime = "SubsecTime"
/// `{Exif}`: the value of tag 0x9291 as the file holds it.
public let kCGImagePropertyExifSubsecTimeOriginal = "SubsecTimeOriginal"
/// `{Exif}`: the value of tag 0x9292 as the file holds it.
public let kCGImagePropertyExifSubsecTimeDigitized = "SubsecTimeDigitized"
/// `{Exif}`: the value of tag 0xA000 as the file holds it.
public let kCGImagePropertyExifFlashPixVersion = "FlashPixVersion"
/// `{Exif}`: the value of tag 0xA001 as the file holds it.
public let kCGImagePropertyExifColorSpace = "ColorSpace"
/// `{Exif}`: the value of tag 0xA004 as the file holds it.
public let kCGImagePropertyExifRelatedSoundFile = "RelatedSoundFile"
/// `{Exif}`: the value of tag 0xA20B as the file holds it.
public let kCGImagePropertyExifFlashEnergy = "FlashEnergy"
/// `{Exif}`: the value of tag 0xA20C as the file holds it.
public let kCGImagePropertyExifSpatialFrequencyResponse = "SpatialFrequencyResponse"
/// `{Exif}`: the value of tag 0xA20E as the file holds it.
public let kCGImagePropertyExifFocalPlaneXResolution = "FocalPlaneXResolution"
/// `{Exif}`: the value of tag 0xA20F as the file holds it.
public let kCGImagePropertyExifFocalPlaneYResolution = "FocalPlaneYResolution"
/// `{Exif}`: the value of tag 0xA210 as the file holds it.
public let kCGImagePropertyExifFocalPlaneResolutionUnit = "FocalPlaneResolutionUnit"
/// `{Exif}`: the value of tag 0xA214 as the file holds it.
public let kCGImagePropertyExifSubjectLocation = "SubjectLocation"
/// `{Exif}`: the value of tag 0xA215 as the file holds it.
public let kCGImagePropertyExifExposureIndex = "ExposureIndex"
/// `{Exif}`: the value of tag 0xA217 as the file holds it.
public let kCGImagePropertyExifSensingMethod = "SensingMethod"
/// `{Exif}`: the value of tag 0xA300 as the file holds it.
public let kCGImagePropertyExifFileSource = "FileSource"
/// `{Exif}`: the value of tag 0xA301 as the file holds it.
public let kCGImagePropertyExifSceneType = "SceneType"
/// `{Exif}`: the value of tag 0xA302 as the file holds it.
public let kCGImagePropertyExifCFAPattern = "CFAPattern"
/// `{Exif}`: the value of tag 0xA401 as the file holds it.
public let kCGImagePropertyExifCustomRendered = "CustomRendered"
/// `{Exif}`: the value of tag 0xA402 as the file holds it.
public let kCGImagePropertyExifExposureMode = "ExposureMode"
/// `{Exif}`: the value of tag 0xA403 as the file holds it.
public let kCGImagePropertyExifWhiteBalance = "WhiteBalance"
/// `{Exif}`: the value of tag 0xA404 as the file holds it.
public let kCGImagePropertyExifDigitalZoomRatio = "DigitalZoomRatio"
/// `{Exif}`: the value of tag 0xA405 as the file holds it.
public let kCGImagePropertyExifFocalLenIn35mmFilm = "FocalLenIn35mmFilm"
/// `{Exif}`: the value of tag 0xA406 as the file holds it.
public let kCGImagePropertyExifSceneCaptureType = "SceneCaptureType"
/// `{Exif}`: the value of tag 0xA407 as the file holds it.
public let kCGImagePropertyExifGainControl = "GainControl"
/// `{Exif}`: the value of tag 0xA408 as the file holds it.
public let kCGImagePropertyExifContrast = "Contrast"
/// `{Exif}`: the value of tag 0xA409 as the file holds it.
public let kCGImagePropertyExifSaturation = "Saturation"
/// `{Exif}`: the value of tag 0xA40A as the file holds it.
public let kCGImagePropertyExifSharpness = "Sharpness"
/// `{Exif}`: the value of tag 0xA40B as the file holds it.
public let kCGImagePropertyExifDeviceSettingDescription = "DeviceSettingDescription"
/// `{Exif}`: the value of tag 0xA40C as the file holds it.
public let kCGImagePropertyExifSubjectDistRange = "SubjectDistRange"
/// `{Exif}`: the value of tag 0xA420 as the file holds it.
public let kCGImagePropertyExifImageUniqueID = "ImageUniqueID"
/// `{Exif}`: the value of tag 0xA430 as the file holds it.
public let kCGImagePropertyExifCameraOwnerName = "CameraOwnerName"
/// `{Exif}`: the value of tag 0xA431 as the file holds it.
public let kCGImagePropertyExifBodySerialNumber = "BodySerialNumber"
/// `{Exif}`: the value of tag 0xA432 as the file holds it.
public let kCGImagePropertyExifLensSpecification = "LensSpecification"
/// `{Exif}`: the value of tag 0xA433 as the file holds it.
public let kCGImagePropertyExifLensMake = "LensMake"
/// `{Exif}`: the value of tag 0xA435 as the file holds it.
public let kCGImagePropertyExifLensSerialNumber = "LensSerialNumber"
/// `{Exif}`: the value of tag 0xA460 as the file holds it.
public let kCGImagePropertyExifCompositeImage = "CompositeImage"
/// `{Exif}`: the value of tag 0xA461 as the file holds it.
public let kCGImagePropertyExifSourceImageNumberOfCompositeImage = "SourceImageNumberOfCompositeImage"
/// `{Exif}`: the value of tag 0xA462 as the file holds it.
public let kCGImagePropertyExifSourceExposureTimesOfCompositeImage = "SourceExposureTimesOfCompositeImage"
/// `{Exif}`: the value of tag 0xA500 as the file holds it.
public let kCGImagePropertyExifGamma = "Gamma"
// MARK: {GPS}
/// `{GPS}`: the value of tag 0x0000 as the file holds it.
public let kCGImagePropertyGPSVersion = "GPSVersion"
/// `{GPS}`: the value of tag 0x0005 as the file holds it.
public let kCGImagePropertyGPSAltitudeRef = "AltitudeRef"
/// `{GPS}`: the value of tag 0x0007 as the file holds it.
public let kCGImagePropertyGPSTimeStamp = "TimeStamp"
/// `{GPS}`: the value of tag 0x0008 as the file holds it.
public let kCGImagePropertyGPSSatellites = "Satellites"
/// `{GPS}`: the value of tag 0x0009 as the file holds it.
public let kCGImagePropertyGPSStatus = "Status"
/// `{GPS}`: the value of tag 0x000A as the file holds it.
public let kCGImagePropertyGPSMeasureMode = "MeasureMode"
/// `{GPS}`: the value of tag 0x000B as the file holds it.
public let kCGImagePropertyGPSDOP = "DOP"
/// `{GPS}`: the value of tag 0x000C as the file holds it.
public let kCGImagePropertyGPSSpeedRef = "SpeedRef"
/// `{GPS}`: the value of tag 0x000D as the file holds it.
public let kCGImagePropertyGPSSpeed = "Speed"
/// `{GPS}`: the value of tag 0x000E as the file holds it.
public let kCGImagePropertyGPSTrackRef = "TrackRef"
/// `{GPS}`: the value of tag 0x000F as the file holds it.
public let kCGImagePropertyGPSTrack = "Track"
/// `{GPS}`: the value of tag 0x0010 as the file holds it.
public let kCGImagePropertyGPSImgDirectionRef = "ImgDirectionRef"
/// `{GPS}`: the value of tag 0x0011 as the file holds it.
public let kCGImagePropertyGPSImgDirection = "ImgDirection"
/// `{GPS}`: the value of tag 0x0012 as the file holds it.
public let kCGImagePropertyGPSMapDatum = "MapDatum"
/// `{GPS}`: the value of tag 0x0013 as the file holds it.
public let kCGImagePropertyGPSDestLatitudeRef = "DestLatitudeRef"
/// `{GPS}`: the value of tag 0x0014 as the file holds it.
public let kCGImagePropertyGPSDestLatitude = "DestLatitude"
/// `{GPS}`: the value of tag 0x0015 as the file holds it.
public let kCGImagePropertyGPSDestLongitudeRef = "DestLongitudeRef"
/// `{GPS}`: the value of tag 0x0016 as the file holds it.
public let kCGImagePropertyGPSDestLongitude = "DestLongitude"
/// `{GPS}`: the value of tag 0x0017 as the file holds it.
public let kCGImagePropertyGPSDestBearingRef = "DestBearingRef"
/// `{GPS}`: the value of tag 0x0018 as the file holds it.
public let kCGImagePropertyGPSDestBearing = "DestBearing"
/// `{GPS}`: the value of tag 0x0019 as the file holds it.
public let kCGImagePropertyGPSDestDistanceRef = "DestDistanceRef"
/// `{GPS}`: the value of tag 0x001A as the file holds it.
public let kCGImagePropertyGPSDestDistance = "DestDistance"
/// `{GPS}`: the value of tag 0x001B as the file holds it.
public let kCGImagePropertyGPSProcessingMethod = "ProcessingMethod"
/// `{GPS}`: the value of tag 0x001C as the file holds it.
public let kCGImagePropertyGPSAreaInformation = "AreaInformation"
/// `{GPS}`: the value of tag 0x001D as the file holds it.
public let kCGImagePropertyGPSDateStamp = "DateStamp"
/// `{GPS}`: the value of tag 0x001E as the file holds it.
public let kCGImagePropertyGPSDifferential = "Differential"
/// `{GPS}`: the value of tag 0x001F as the file holds it.
public let kCGImagePropertyGPSHPositioningError = "HPositioningError"
#endif
