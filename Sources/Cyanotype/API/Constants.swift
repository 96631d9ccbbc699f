// Core Image's string constants: input keys, attribute keys, categories.

/// The key of a filter's main input image (a `CIImage`).
public let kCIInputImageKey = "inputImage"
/// The key of the backdrop image a composite or blend filter draws its input over.
public let kCIInputBackgroundImageKey = "inputBackgroundImage"
/// The key of the image a transition filter moves towards.
public let kCIInputTargetImageKey = "inputTargetImage"
/// The key of a mask image (which pixels a filter affects, or how much).
public let kCIInputMaskImageKey = "inputMaskImage"
/// The key of an image a filter reads as a gradient or colour map.
public let kCIInputGradientImageKey = "inputGradientImage"
/// The key of an image that shades a result (the page-curl and shaded-material filters).
public let kCIInputShadingImageKey = "inputShadingImage"
/// The key of a disparity map (depth-based filters; platform-bound here).
public let kCIInputDisparityImageKey = "inputDisparityImage"
/// The key of a depth map (depth-based filters; platform-bound here).
public let kCIInputDepthImageKey = "inputDepthImage"
/// The key of a matte image (portrait and segmentation filters; platform-bound here).
public let kCIInputMatteImageKey = "inputMatteImage"
/// The key of a transition's progress, from 0 (the input) to 1 (the target).
public let kCIInputTimeKey = "inputTime"
/// The key of an affine transform input (`CGAffineTransform`).
public let kCIInputTransformKey = "inputTransform"
/// The key of a scale factor.
public let kCIInputScaleKey = "inputScale"
/// The key of an aspect ratio (width over height).
public let kCIInputAspectRatioKey = "inputAspectRatio"
/// The key of a centre point, a two-element `CIVector` in image coordinates.
public let kCIInputCenterKey = "inputCenter"
/// The key of a radius, in pixels.
public let kCIInputRadiusKey = "inputRadius"
/// The key of an angle, in radians.
public let kCIInputAngleKey = "inputAngle"
/// The key of an index of refraction (the glass and lens filters).
public let kCIInputRefractionKey = "inputRefraction"
/// The key of a width, in pixels.
public let kCIInputWidthKey = "inputWidth"
/// The key of a sharpness amount.
public let kCIInputSharpnessKey = "inputSharpness"
/// The key of an effect's strength.
public let kCIInputIntensityKey = "inputIntensity"
/// The key of an exposure adjustment in F-stops.
public let kCIInputEVKey = "inputEV"
/// The key of a saturation amount.
public let kCIInputSaturationKey = "inputSaturation"
/// The key of a colour input (a `CIColor`).
public let kCIInputColorKey = "inputColor"
/// The key of a brightness amount.
public let kCIInputBrightnessKey = "inputBrightness"
/// The key of a contrast amount.
public let kCIInputContrastKey = "inputContrast"
/// The key of a value added to each result (the convolution filters).
public let kCIInputBiasKey = "inputBias"
/// The key of a convolution's weights, a `CIVector` read row by row from the top.
public let kCIInputWeightsKey = "inputWeights"
/// An older spelling of `kCIInputGradientImageKey`, kept for code that uses it.
public let kCIInputGradientImage = "inputGradientImage"
/// The key of a rectangle, a four-element `CIVector` `[x y width height]` (reductions, generators).
public let kCIInputExtentKey = "inputExtent"
/// The key of an amount (how much of an effect, such as a hole distortion's).
public let kCIInputAmountKey = "inputAmount"
/// The key that selects the version of a filter's behaviour, where a filter has several.
public let kCIInputVersionKey = "inputVersion"
/// The key of an exponent (the colour-space and gamma filters).
public let kCIInputPowerKey = "inputPower"
/// The key under which a filter reports its result, `outputImage`.
public let kCIOutputImageKey = "outputImage"

/// The attributes key of a filter's name (`"CISepiaTone"`).
public let kCIAttributeFilterName = "CIAttributeFilterName"
/// The attributes key of a filter's human-readable name (`"Sepia Tone"`).
public let kCIAttributeFilterDisplayName = "CIAttributeFilterDisplayName"
/// The attributes key of a description, of a filter or of one of its inputs.
public let kCIAttributeDescription = "CIAttributeDescription"
/// The attributes key of the macOS version that introduced a filter.
public let kCIAttributeFilterAvailable_Mac = "CIAttributeFilterAvailable_Mac"
/// The attributes key of the iOS version that introduced a filter.
public let kCIAttributeFilterAvailable_iOS = "CIAttributeFilterAvailable_iOS"
/// The attributes key of a link to a filter's reference documentation.
public let kCIAttributeReferenceDocumentation = "CIAttributeReferenceDocumentation"
/// The attributes key of the categories a filter belongs to (`kCICategory*` strings).
public let kCIAttributeFilterCategories = "CIAttributeFilterCategories"
/// The attributes key of an input's class name (`"CIImage"`, `"NSNumber"`, `"CIVector"`, ...).
public let kCIAttributeClass = "CIAttributeClass"
/// The attributes key of an input's type (one of the `kCIAttributeType*` strings).
public let kCIAttributeType = "CIAttributeType"
/// The attributes key of the smallest value an input accepts.
public let kCIAttributeMin = "CIAttributeMin"
/// The attributes key of the largest value an input accepts.
public let kCIAttributeMax = "CIAttributeMax"
/// The attributes key of the low end of the range a user interface should offer.
public let kCIAttributeSliderMin = "CIAttributeSliderMin"
/// The attributes key of the high end of the range a user interface should offer.
public let kCIAttributeSliderMax = "CIAttributeSliderMax"
/// The attributes key of an input's default value.
public let kCIAttributeDefault = "CIAttributeDefault"
/// The attributes key of the value for which an input leaves the image unchanged.
public let kCIAttributeIdentity = "CIAttributeIdentity"
/// The attributes key of an input's key (`"inputRadius"`).
public let kCIAttributeName = "CIAttributeName"
/// The attributes key of an input's human-readable name (`"Radius"`).
public let kCIAttributeDisplayName = "CIAttributeDisplayName"

/// An attribute type: a time, from 0 to 1 (a transition's progress).
public let kCIAttributeTypeTime = "CIAttributeTypeTime"
/// An attribute type: a plain number.
public let kCIAttributeTypeScalar = "CIAttributeTypeScalar"
/// An attribute type: a distance, in pixels.
public let kCIAttributeTypeDistance = "CIAttributeTypeDistance"
/// An attribute type: an angle, in radians.
public let kCIAttributeTypeAngle = "CIAttributeTypeAngle"
/// An attribute type: a Boolean, a number that is 0 or 1.
public let kCIAttributeTypeBoolean = "CIAttributeTypeBoolean"
/// An attribute type: a whole number.
public let kCIAttributeTypeInteger = "CIAttributeTypeInteger"
/// An attribute type: a positive whole number.
public let kCIAttributeTypeCount = "CIAttributeTypeCount"
/// An attribute type: a point in image coordinates (a two-element vector).
public let kCIAttributeTypePosition = "CIAttributeTypePosition"
/// An attribute type: an offset (a two-element vector).
public let kCIAttributeTypeOffset = "CIAttributeTypeOffset"
/// An attribute type: a point in three dimensions (a three-element vector).
public let kCIAttributeTypePosition3 = "CIAttributeTypePosition3"
/// An attribute type: a rectangle, `[x y width height]` (a four-element vector).
public let kCIAttributeTypeRectangle = "CIAttributeTypeRectangle"
/// An attribute type: a colour whose alpha is ignored.
public let kCIAttributeTypeOpaqueColor = "CIAttributeTypeOpaqueColor"
/// An attribute type: a colour, alpha included.
public let kCIAttributeTypeColor = "CIAttributeTypeColor"
/// An attribute type: an image read as a gradient (one row of colours).
public let kCIAttributeTypeGradient = "CIAttributeTypeGradient"
/// An attribute type: an image (`CIImage`).
public let kCIAttributeTypeImage = "CIAttributeTypeImage"
/// An attribute type: an affine transform.
public let kCIAttributeTypeTransform = "CIAttributeTypeTransform"

/// Filters that reshape an image (twirls, bumps, glass).
public let kCICategoryDistortionEffect = "CICategoryDistortionEffect"
/// Filters that change an image's geometry (transforms, crops, straightening).
public let kCICategoryGeometryAdjustment = "CICategoryGeometryAdjustment"
/// Filters that combine two images (Porter-Duff operations and blend modes).
public let kCICategoryCompositeOperation = "CICategoryCompositeOperation"
/// Filters that imitate printed halftone screens.
public let kCICategoryHalftoneEffect = "CICategoryHalftoneEffect"
/// Filters that correct colour (exposure, white point, tone curves).
public let kCICategoryColorAdjustment = "CICategoryColorAdjustment"
/// Filters that change colour for effect (sepia, photo effects, colour maps).
public let kCICategoryColorEffect = "CICategoryColorEffect"
/// Filters that go from one image to another over time (`inputTime`).
public let kCICategoryTransition = "CICategoryTransition"
/// Filters that repeat or mirror part of an image over the plane.
public let kCICategoryTileEffect = "CICategoryTileEffect"
/// Filters that make an image from no input image (colours, patterns, codes, text).
public let kCICategoryGenerator = "CICategoryGenerator"
/// Filters that reduce an image to a few pixels of results (averages, histograms).
public let kCICategoryReduction = "CICategoryReduction"
/// Filters that generate gradients.
public let kCICategoryGradient = "CICategoryGradient"
/// Filters that stylise an image (pixellate, edges, comic effect).
public let kCICategoryStylize = "CICategoryStylize"
/// Filters that sharpen an image.
public let kCICategorySharpen = "CICategorySharpen"
/// Filters that blur an image.
public let kCICategoryBlur = "CICategoryBlur"
/// Filters suitable for video.
public let kCICategoryVideo = "CICategoryVideo"
/// Filters suitable for still images.
public let kCICategoryStillImage = "CICategoryStillImage"
/// Filters that work on interlaced images.
public let kCICategoryInterlaced = "CICategoryInterlaced"
/// Filters that work on images with non-square pixels.
public let kCICategoryNonSquarePixels = "CICategoryNonSquarePixels"
/// Filters that keep values outside 0...1 (high dynamic range).
public let kCICategoryHighDynamicRange = "CICategoryHighDynamicRange"
/// Filters built into the library, as opposed to ones an app registers.
public let kCICategoryBuiltIn = "CICategoryBuiltIn"
/// Filters made by combining other filters (Core Image's filter generators).
public let kCICategoryFilterGenerator = "CICategoryFilterGenerator"
