// Filters whose work is done by Apple's frameworks, models or camera data. `CIFilter(name:)`
// gives them with Apple's attributes, so code that lists, describes or configures filters
// keeps working; their output is nil, and `makeOutputImage()` throws
// `CIFilterError.unavailable` naming what the filter needs.

extension BuiltinFilters {
    /// CICoreMLModelFilter: in Core Image, runs an image-to-image Core ML model (`inputModel`,
    /// an `MLModel`) on the input. Cyanotype has no Core ML: no image, a typed
    /// `unavailable` error.
    static let coreMLModelFilter = BuiltinFilter(Catalog.CICoreMLModelFilter) { args throws(CIFilterError) in
        throw .unavailable(filter: args.descriptor.name, needs: "Apple's Core ML framework to run an MLModel")
    }

    /// CIPersonSegmentation: in Core Image, a mask of the people in the image from Vision's
    /// person-segmentation network. Cyanotype has no such model: no image, a typed
    /// `unavailable` error.
    static let personSegmentation = BuiltinFilter(Catalog.CIPersonSegmentation) { args throws(CIFilterError) in
        throw .unavailable(filter: args.descriptor.name, needs: "Apple's Vision framework and its person-segmentation model")
    }

    /// CISaliencyMapFilter: in Core Image, a heat map of the image's salient areas from
    /// Vision's saliency network. Cyanotype has no such model: no image, a typed
    /// `unavailable` error.
    static let saliencyMapFilter = BuiltinFilter(Catalog.CISaliencyMapFilter) { args throws(CIFilterError) in
        throw .unavailable(filter: args.descriptor.name, needs: "Apple's Vision framework and its saliency model")
    }

    /// CIDepthBlurEffect: in Core Image, Portrait mode's background blur, driven by the
    /// disparity map, the person, hair and glasses mattes, the face landmarks and the camera
    /// calibration of an Apple camera capture. Cyanotype has neither that data nor Apple's
    /// portrait pipeline: no image, a typed `unavailable` error.
    static let depthBlurEffect = BuiltinFilter(Catalog.CIDepthBlurEffect) { args throws(CIFilterError) in
        throw .unavailable(
            filter: args.descriptor.name,
            needs: "the depth, mattes and AVCameraCalibrationData of an Apple camera capture and Apple's portrait pipeline")
    }

    /// CICameraCalibrationLensCorrection: in Core Image, removes (or adds) the lens
    /// distortion described by an `AVCameraCalibrationData` from an Apple camera capture.
    /// Cyanotype has no AVFoundation: no image, a typed `unavailable` error.
    static let cameraCalibrationLensCorrection = BuiltinFilter(Catalog.CICameraCalibrationLensCorrection) { args throws(CIFilterError) in
        throw .unavailable(filter: args.descriptor.name, needs: "AVFoundation's AVCameraCalibrationData (a capture's lens-distortion tables)")
    }
}
