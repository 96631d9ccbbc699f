// Filters whose work is done by Apple's frameworks, models or camera data. `CIFilter(name:)`
// gives them with Apple's attributes, so code that lists, describes or configures filters
// keeps working; their output is nil, and `makeOutputImage()` throws
// `CIFilterError.unavailable` naming what the filter needs.

extension BuiltinFilters {
    /// CICoreMLModelFilter: Runs a Core ML image-to-image model on the input.
    static let coreMLModelFilter = BuiltinFilter(
        FilterDescriptor(
            "CICoreMLModelFilter", "CoreML Model Filter", "Runs a Core ML image-to-image model on the input.",
            categories: [.builtIn, .stillImage, .stylize], macOS: "10.14", iOS: "12", factory: "coreMLModel", protocol: "CICoreMLModel",
            doc: """
                In Core Image, runs an image-to-image Core ML model (`inputModel`,
                an `MLModel`) on the input. Cyanotype has no Core ML: no image, a typed
                `unavailable` error.
                """,
            inputs: [
                .image(),
                .other("MLModel", "inputModel", "Model", nil),
                .number("inputHeadIndex", "Head Index", .integer, default: 0, min: 0, max: 10),
                .bool("inputSoftmaxNormalization", "Softmax Normalization", default: false, min: 0, max: 1),
            ])
    ) { args throws(CIFilterError) in
        throw .unavailable(filter: args.descriptor.name, needs: "Apple's Core ML framework to run an MLModel")
    }

    /// CIPersonSegmentation: Returns a low-resolution mask of people in the image (ML-based).
    static let personSegmentation = BuiltinFilter(
        FilterDescriptor(
            "CIPersonSegmentation", "Person Segmentation", "Returns a low-resolution mask of people in the image (ML-based).",
            categories: [.builtIn, .stillImage, .stylize, .video], macOS: "12.0", iOS: "15", factory: "personSegmentation",
            doc: """
                In Core Image, a mask of the people in the image from Vision's
                person-segmentation network. Cyanotype has no such model: no image, a typed
                `unavailable` error.
                """,
            inputs: [
                .image(),
                .number("inputQualityLevel", "Quality Level", .integer, default: 0, min: 0, max: 2, slider: 0...2),
            ])
    ) { args throws(CIFilterError) in
        throw .unavailable(filter: args.descriptor.name, needs: "Apple's Vision framework and its person-segmentation model")
    }

    /// CISaliencyMapFilter: Produces a heat map of visually salient areas (ML-based).
    static let saliencyMapFilter = BuiltinFilter(
        FilterDescriptor(
            "CISaliencyMapFilter", "Saliency Map Filter", "Produces a heat map of visually salient areas (ML-based).",
            categories: [.builtIn, .stillImage, .stylize, .video], macOS: "10.14", iOS: "12", factory: "saliencyMap", protocol: "CISaliencyMap",
            doc: """
                In Core Image, a heat map of the image's salient areas from
                Vision's saliency network. Cyanotype has no such model: no image, a typed
                `unavailable` error.
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        throw .unavailable(filter: args.descriptor.name, needs: "Apple's Vision framework and its saliency model")
    }

    /// CIDepthBlurEffect: Portrait-style background blur driven by disparity/depth, matte and face landmarks.
    static let depthBlurEffect = BuiltinFilter(
        FilterDescriptor(
            "CIDepthBlurEffect", "Depth Blur Effect", "Portrait-style background blur driven by disparity/depth, matte and face landmarks.",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.13", iOS: "11",
            doc: """
                In Core Image, Portrait mode's background blur, driven by the
                disparity map, the person, hair and glasses mattes, the face landmarks and the camera
                calibration of an Apple camera capture. Cyanotype has neither that data nor Apple's
                portrait pipeline: no image, a typed `unavailable` error.
                """,
            inputs: [
                .image(),
                .image("inputDisparityImage", "Disparity Image"),
                .image("inputMatteImage", "Matte Image"),
                .image("inputHairImage", "Hair Image"),
                .image("inputGlassesImage", "Glasses Image"),
                .image("inputGainMap", "Gain Map"),
                .number("inputAperture", "Aperture", .scalar, default: 0, min: 0, max: 22, slider: 1...22),
                .vector("inputLeftEyePositions", "Left Eye Positions", .position, default: [-1, -1]),
                .vector("inputRightEyePositions", "Right Eye Positions", .position, default: [-1, -1]),
                .vector("inputChinPositions", "Chin Positions", .position, default: [-1, -1]),
                .vector("inputNosePositions", "Nose Positions", .position, default: [-1, -1]),
                .vector(
                    "inputFocusRect", "Focus Rectangle", .rectangle, identity: [-8.988465674311579e+307, -8.988465674311579e+307, 1.7976931348623157e+308, 1.7976931348623157e+308]),
                .number("inputLumaNoiseScale", "Luma Noise Scale", .scalar, default: 0, min: 0, max: 0.1, slider: 0...0.1),
                .number("inputScaleFactor", "Scale Factor", .scalar, default: 1, slider: 0...1),
                .other("AVCameraCalibrationData", "inputCalibrationData", "Calibration Data", nil),
                .other("CGImageMetadataRef", "inputAuxDataMetadata", "Aux Data Metadata", nil),
                .other("NSString", "inputShape", "Shape", nil),
            ])
    ) { args throws(CIFilterError) in
        throw .unavailable(
            filter: args.descriptor.name,
            needs: "the depth, mattes and AVCameraCalibrationData of an Apple camera capture and Apple's portrait pipeline")
    }

    /// CICameraCalibrationLensCorrection: Corrects (or applies) lens distortion using camera calibration data from a capture.
    static let cameraCalibrationLensCorrection = BuiltinFilter(
        FilterDescriptor(
            "CICameraCalibrationLensCorrection", "Lens Correction for AVC", "Corrects (or applies) lens distortion using camera calibration data from a capture.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.14", iOS: "12",
            doc: """
                In Core Image, removes (or adds) the lens
                distortion described by an `AVCameraCalibrationData` from an Apple camera capture.
                Cyanotype has no AVFoundation: no image, a typed `unavailable` error.
                """,
            inputs: [
                .image(),
                .other("AVCameraCalibrationData", "inputAVCameraCalibrationData", "Calibration Data object of type AVCameraCalibrationData", nil),
                .bool("inputUseInverseLookUpTable", "Use Inverse Look Up Table", default: false),
            ])
    ) { args throws(CIFilterError) in
        throw .unavailable(filter: args.descriptor.name, needs: "AVFoundation's AVCameraCalibrationData (a capture's lens-distortion tables)")
    }
}
