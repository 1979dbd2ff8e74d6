// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ImgproxyProcessingCases {
    /// crop, extend, padding, trim, flatten, watermark, filters and colorspace tests.
    static let more: [ImgproxyProcessingCase] = [
        rows("crop_test.go", "TestResizeFill", geometry, resizeFill),
        rows("crop_test.go", "TestCrop", geometry, crop),
        rows("extend_test.go", "TestExtend", geometry, extend),
        rows("extend_test.go", "TestExtendAspectRatio", geometry, extendAspectRatio),
        rows("padding_test.go", "TestPadding", geometry, padding),
        rows("trim_test.go", "TestThreshold", trim1, trimThreshold),
        rows("trim_test.go", "TestColor", trim2, trimColor),
        rows("trim_test.go", "TestAlpha", trim3, trimAlpha),
        rows("flatten_test.go", "TestBackground", bmp32Alpha, settings: ["IMGPROXY_PRESERVE_HDR": "true"], flattenBackground),
        rows("watermark_test.go", "TestWatermark", bmp24, settings: ["IMGPROXY_WATERMARK_PATH": "geometry.png"], watermark),
        rows(
            "watermark_test.go", "TestWatermarkAnimation", gif,
            settings: ["IMGPROXY_MAX_ANIMATION_FRAMES": "100", "IMGPROXY_WATERMARK_PATH": "geometry.png"], watermarkAnimation),
        rows("apply_filters_test.go", "TestEffects", png, effects),
        rows("colorspace_test.go", "TestColorspace", png8, settings: ["IMGPROXY_PRESERVE_HDR": "true"], colorspace),
        rows(
            "colorspace_test.go", "TestLinearColorspace", png16Linear,
            settings: ["IMGPROXY_PRESERVE_HDR": "true", "IMGPROXY_USE_LINEAR_COLORSPACE": "true"], linearColorspace),
        rows("colorspace_test.go", "TestDownscaleHDR", png16, settings: ["IMGPROXY_PRESERVE_HDR": "false"], downscaleHDR),
        rows("colorspace_test.go", "TestWatermarkColorspace", png8, settings: ["IMGPROXY_PRESERVE_HDR": "true"], watermarkColorspace),
        rows("colorspace_test.go", "TestPreserveHDROptionOverride", png16, preserveHDROptionOverride)
    ].flatMap { $0 }

    static let resizeFill: [Row] = [
        Row("resizeFill_100x26_gravity_ce", "rs:fill:100:26/g:ce", 100, 26, result: at(0, 12)),
        Row("resizeFill_100x26_gravity_no", "rs:fill:100:26/g:no", 100, 26, result: at(0, 0)),
        Row("resizeFill_100x26_gravity_so", "rs:fill:100:26/g:so", 100, 26, result: at(0, 24)),
        Row("resizeFill_100x26_gravity_noea", "rs:fill:100:26/g:noea", 100, 26, result: at(0, 0)),
        Row("resizeFill_100x26_gravity_soea", "rs:fill:100:26/g:soea", 100, 26, result: at(0, 24)),
        Row("resizeFill_100x26_gravity_sowe", "rs:fill:100:26/g:sowe", 100, 26, result: at(0, 24)),
        Row("resizeFill_100x26_gravity_nowe", "rs:fill:100:26/g:nowe", 100, 26, result: at(0, 0)),
        Row("resizeFill_26x100_gravity_ce", "rs:fill:26:100/g:ce", 26, 100, result: at(88, 0)),
        Row("resizeFill_26x100_gravity_ea", "rs:fill:26:100/g:ea", 26, 100, result: at(174, 0)),
        Row("resizeFill_26x100_gravity_we", "rs:fill:26:100/g:we", 26, 100, result: at(0, 0)),
        Row("resizeFill_26x100_gravity_noea", "rs:fill:26:100/g:noea", 26, 100, result: at(174, 0)),
        Row("resizeFill_26x100_gravity_soea", "rs:fill:26:100/g:soea", 26, 100, result: at(174, 0)),
        Row("resizeFill_26x100_gravity_sowe", "rs:fill:26:100/g:sowe", 26, 100, result: at(0, 0)),
        Row("resizeFill_26x100_gravity_nowe", "rs:fill:26:100/g:nowe", 26, 100, result: at(0, 0)),
        Row("resizeFill_100x26_gravity_ce_dpr_2", "rs:fill:100:26/g:ce/dpr:2", 200, 52, result: at(0, 24)),
        Row("resizeFill_100x26_gravity_no_offset_0.000000_5.000000", "rs:fill:100:26/g:no::5", 100, 26, result: at(0, 5)),
        Row("resizeFill_100x26_gravity_no_offset_0.000000_5.000000_dpr_0.5", "rs:fill:100:26/g:no::5/dpr:0.5", 50, 13, result: at(0, 2)),
        Row("resizeFill_100x26_gravity_no_offset_0.000000_5.000000_dpr_2", "rs:fill:100:26/g:no::5/dpr:2", 200, 52, result: at(0, 10)),
        Row("resizeFill_26x100_gravity_no_offset_5.000000_0.000000", "rs:fill:26:100/g:no:5", 26, 100, result: at(93, 0)),
        Row("resizeFill_26x100_gravity_no_offset_5.000000_0.000000_dpr_0.5", "rs:fill:26:100/g:no:5/dpr:0.5", 13, 50, result: at(46, 0)),
        Row("resizeFill_26x100_gravity_no_offset_5.000000_0.000000_dpr_2", "rs:fill:26:100/g:no:5/dpr:2", 26, 100, result: at(93, 0)),
        Row("resizeFill_100x26_gravity_no_offset_0.000000_0.100000", "rs:fill:100:26/g:no::0.1", 100, 26, result: at(0, 5)),
        Row("resizeFill_100x26_gravity_no_offset_0.000000_0.100000_dpr_0.5", "rs:fill:100:26/g:no::0.1/dpr:0.5", 50, 13, result: at(0, 2)),
        Row("resizeFill_100x26_gravity_no_offset_0.000000_0.100000_dpr_2", "rs:fill:100:26/g:no::0.1/dpr:2", 200, 52, result: at(0, 10))
    ]

    static let crop: [Row] = [
        Row("crop_gravity_ce_crop_50x50", "crop:50:50:ce", 50, 50, crop: at(76, 26)),
        Row("crop_gravity_no_crop_50x50", "crop:50:50:no", 50, 50, crop: at(76, 0)),
        Row("crop_gravity_so_crop_50x50", "crop:50:50:so", 50, 50, crop: at(76, 50)),
        Row("crop_gravity_ea_crop_50x50", "crop:50:50:ea", 50, 50, crop: at(150, 26)),
        Row("crop_gravity_we_crop_50x50", "crop:50:50:we", 50, 50, crop: at(0, 26)),
        Row("crop_gravity_noea_crop_50x50", "crop:50:50:noea", 50, 50, crop: at(150, 0)),
        Row("crop_gravity_nowe_crop_50x50", "crop:50:50:nowe", 50, 50, crop: at(0, 0)),
        Row("crop_gravity_soea_crop_50x50", "crop:50:50:soea", 50, 50, crop: at(150, 50)),
        Row("crop_gravity_sowe_crop_50x50", "crop:50:50:sowe", 50, 50, crop: at(0, 50)),
        Row("crop_gravity_ce_crop_50x50_offset_10.000000_0.000000", "crop:50:50:ce:10", 50, 50, crop: at(86, 26)),
        Row("crop_gravity_ce_crop_50x50_offset_0.000000_10.000000", "crop:50:50:ce::10", 50, 50, crop: at(76, 36)),
        Row("crop_gravity_ce_crop_50x50_offset_10.000000_10.000000", "crop:50:50:ce:10:10", 50, 50, crop: at(86, 36)),
        Row("crop_gravity_ce_crop_50x50_offset_0.100000_0.000000", "crop:50:50:ce:0.1", 50, 50, crop: at(96, 26)),
        Row("crop_gravity_ce_crop_50x50_offset_0.000000_0.100000", "crop:50:50:ce::0.1", 50, 50, crop: at(76, 36)),
        Row("crop_gravity_ce_crop_50x50_offset_0.100000_0.100000", "crop:50:50:ce:0.1:0.1", 50, 50, crop: at(96, 36)),
        Row("crop_gravity_ce_crop_50x50_offset_10.000000_10.000000_dpr_0.5", "crop:50:50:ce:10:10/dpr:0.5", 25, 25, crop: at(86, 36))
    ]

    static let extend: [Row] = [
        Row("extend_500x500_gravity_ce", "width:500/height:500/extend:1:ce", 500, 500, embed: at(150, 200)),
        Row("extend_500x500_gravity_no", "width:500/height:500/extend:1:no", 500, 500, embed: at(150, 0)),
        Row("extend_500x500_gravity_so", "width:500/height:500/extend:1:so", 500, 500, embed: at(150, 400)),
        Row("extend_500x500_gravity_ea", "width:500/height:500/extend:1:ea", 500, 500, embed: at(300, 200)),
        Row("extend_500x500_gravity_we", "width:500/height:500/extend:1:we", 500, 500, embed: at(0, 200)),
        Row("extend_500x500_gravity_noea", "width:500/height:500/extend:1:noea", 500, 500, embed: at(300, 0)),
        Row("extend_500x500_gravity_soea", "width:500/height:500/extend:1:soea", 500, 500, embed: at(300, 400)),
        Row("extend_500x500_gravity_sowe", "width:500/height:500/extend:1:sowe", 500, 500, embed: at(0, 400)),
        Row("extend_500x500_gravity_nowe", "width:500/height:500/extend:1:nowe", 500, 500, embed: at(0, 0)),
        Row("extend_500x500_gravity_no_offset_0.000000_5.000000", "width:500/height:500/extend:1:no::5", 500, 500, embed: at(150, 5)),
        Row("extend_500x500_gravity_no_offset_0.000000_5.000000_dpr_0.5", "width:500/height:500/extend:1:no::5/dpr:0.5", 250, 250, embed: at(76, 2)),
        Row("extend_500x500_gravity_no_offset_0.000000_5.000000_dpr_2", "width:500/height:500/extend:1:no::5/dpr:2", 500, 500, embed: at(150, 5)),
        Row("extend_500x500_gravity_ea_offset_5.000000_0.000000", "width:500/height:500/extend:1:ea:5", 500, 500, embed: at(295, 200)),
        Row(
            "extend_500x500_gravity_ea_offset_5.000000_0.000000_dpr_0.5", "width:500/height:500/extend:1:ea:5/dpr:0.5", 250, 250,
            embed: at(148, 100)),
        Row("extend_500x500_gravity_ea_offset_5.000000_0.000000_dpr_2", "width:500/height:500/extend:1:ea:5/dpr:2", 500, 500, embed: at(295, 200)),
        Row("extend_500x500_gravity_no_offset_0.000000_0.100000", "width:500/height:500/extend:1:no::0.1", 500, 500, embed: at(150, 50)),
        Row(
            "extend_500x500_gravity_no_offset_0.000000_0.100000_dpr_0.5", "width:500/height:500/extend:1:no::0.1/dpr:0.5", 250, 250,
            embed: at(76, 25)),
        Row("extend_500x500_gravity_no_offset_0.000000_0.100000_dpr_2", "width:500/height:500/extend:1:no::0.1/dpr:2", 500, 500, embed: at(150, 50))
    ]

    static let extendAspectRatio: [Row] = [
        Row("extendAr_300x600_gravity_ce", "width:300/height:600/extend_aspect_ratio:1:ce", 200, 400, embed: at(0, 150)),
        Row("extendAr_300x600_gravity_no", "width:300/height:600/extend_aspect_ratio:1:no", 200, 400, embed: at(0, 0)),
        Row("extendAr_300x600_gravity_so", "width:300/height:600/extend_aspect_ratio:1:so", 200, 400, embed: at(0, 300)),
        Row("extendAr_300x600_gravity_ea", "width:300/height:600/extend_aspect_ratio:1:ea", 200, 400, embed: at(0, 150)),
        Row("extendAr_300x600_gravity_we", "width:300/height:600/extend_aspect_ratio:1:we", 200, 400, embed: at(0, 150)),
        Row("extendAr_300x600_gravity_noea", "width:300/height:600/extend_aspect_ratio:1:noea", 200, 400, embed: at(0, 0)),
        Row("extendAr_300x600_gravity_soea", "width:300/height:600/extend_aspect_ratio:1:soea", 200, 400, embed: at(0, 300)),
        Row("extendAr_300x600_gravity_sowe", "width:300/height:600/extend_aspect_ratio:1:sowe", 200, 400, embed: at(0, 300)),
        Row("extendAr_300x600_gravity_nowe", "width:300/height:600/extend_aspect_ratio:1:nowe", 200, 400, embed: at(0, 0)),
        Row("extendAr_300x600_gravity_no_offset_0.000000_5.000000", "width:300/height:600/extend_aspect_ratio:1:no::5", 200, 400, embed: at(0, 5)),
        Row(
            "extendAr_300x600_gravity_no_offset_0.000000_5.000000_dpr_0.5", "width:300/height:600/extend_aspect_ratio:1:no::5/dpr:0.5", 150, 300,
            embed: at(0, 4)),
        Row(
            "extendAr_300x600_gravity_no_offset_0.000000_5.000000_dpr_2", "width:300/height:600/extend_aspect_ratio:1:no::5/dpr:2", 200, 400,
            embed: at(0, 5)),
        Row("extendAr_300x600_gravity_ea_offset_5.000000_0.000000", "width:300/height:600/extend_aspect_ratio:1:ea:5", 200, 400, embed: at(0, 150)),
        Row(
            "extendAr_300x600_gravity_ea_offset_5.000000_0.000000_dpr_0.5", "width:300/height:600/extend_aspect_ratio:1:ea:5/dpr:0.5", 150, 300,
            embed: at(0, 113)),
        Row(
            "extendAr_300x600_gravity_ea_offset_5.000000_0.000000_dpr_2", "width:300/height:600/extend_aspect_ratio:1:ea:5/dpr:2", 200, 400,
            embed: at(0, 150)),
        Row("extendAr_300x600_gravity_no_offset_0.000000_0.100000", "width:300/height:600/extend_aspect_ratio:1:no::0.1", 200, 400, embed: at(0, 40)),
        Row(
            "extendAr_300x600_gravity_no_offset_0.000000_0.100000_dpr_0.5", "width:300/height:600/extend_aspect_ratio:1:no::0.1/dpr:0.5", 150, 300,
            embed: at(0, 30)),
        Row(
            "extendAr_300x600_gravity_no_offset_0.000000_0.100000_dpr_2", "width:300/height:600/extend_aspect_ratio:1:no::0.1/dpr:2", 200, 400,
            embed: at(0, 40))
    ]

    static let padding: [Row] = [
        Row("dpr_0.5_pad_20_30_40_10", "dpr:0.500000/padding:20:30:40:10/background:f00/enlarge:1", 120, 80, embed: at(5, 10)),
        Row("dpr_1_pad_20_30_40_10", "dpr:1.000000/padding:20:30:40:10/background:f00/enlarge:1", 240, 160, embed: at(10, 20)),
        Row("dpr_2_pad_20_30_40_10", "dpr:2.000000/padding:20:30:40:10/background:f00/enlarge:1", 480, 320, embed: at(20, 40))
    ]

    static let trimThreshold: [Row] = [
        Row("trim_threshold_5", "trim:5", 320, 220),
        Row("trim_threshold_100", "trim:100", 290, 190),
        Row("trim_threshold_150", "trim:150", 260, 160),
        Row("trim_threshold_200", "trim:200", 230, 130),
        Row("trim_threshold_220", "trim:220", 200, 100),
        Row("trim_threshold_0_color_#ff0000", "trim:0:ff0000", 350, 250),
        Row("trim_threshold_5_equalHor", "trim:5::1", 330, 220),
        Row("trim_threshold_5_equalVer", "trim:5:::1", 320, 230),
        Row("trim_threshold_5_equalHor_equalVer", "trim:5::1:1", 330, 230)
    ]

    static let trimColor: [Row] = [
        Row("trim_threshold_1", "trim:1", 200, 170),
        Row("trim_threshold_1_color_#ff0000", "trim:1:ff0000", 200, 170),
        Row("trim_threshold_1_color_#0000ff", "trim:1:0000ff", 200, 130),
        Row("trim_threshold_1_color_#ffffff", "trim:1:ffffff", 200, 200)
    ]

    static let trimAlpha: [Row] = [
        Row("trim_threshold_1_color_#ff00ff", "trim:1:ff00ff", 200, 130)
    ]

    static let flattenBackground: [Row] = [
        Row(
            "32-bpp-red-jpeg", "resize:fill:300:300/enlarge:1/padding:100/format:jpeg/background:255:0:0", 500, 500, result: at(30, 0),
            embed: at(100, 100)),
        Row(
            "32-bpp-red-png", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:255:0:0", 500, 500, result: at(30, 0),
            embed: at(100, 100)),
        Row("32-bpp-none-jpeg", "resize:fill:300:300/enlarge:1/padding:100/format:jpeg", 500, 500, result: at(30, 0), embed: at(100, 100)),
        Row("32-bpp-none-png", "resize:fill:300:300/enlarge:1/padding:100/format:png", 500, 500, result: at(30, 0), embed: at(100, 100)),
        Row(
            "16-bpp-gray-rgb16", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:127:127:127", 500, 500, embed: at(100, 100),
            source: png16),
        Row(
            "16-bpp-red-rgb16", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:255:0:0", 500, 500, embed: at(100, 100),
            source: png16),
        Row(
            "8-bpp-grayscale-gray-bw", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:127:127:127", 500, 500, result: at(0, 50),
            embed: at(100, 100), source: png8Gray),
        Row(
            "8-bpp-grayscale-red-srgb", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:255:0:0", 500, 500, result: at(0, 50),
            embed: at(100, 100), source: png8Gray),
        Row(
            "16-bpp-grayscale-gray-grey16", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:127:127:127", 500, 500,
            embed: at(100, 100), source: png16Gray),
        Row(
            "16-bpp-grayscale-red-rgb16", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:255:0:0", 500, 500, embed: at(100, 100),
            source: png16Gray),
        Row(
            "8-bpp-gray-srgb", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:127:127:127", 500, 500, embed: at(100, 100),
            source: png8),
        Row("8-bpp-red-srgb", "resize:fill:300:300/enlarge:1/padding:100/format:png/background:255:0:0", 500, 500, embed: at(100, 100), source: png8)
    ]

    static let watermark: [Row] = [
        Row("ce_opacity_1", "watermark:1:ce/format:png", 1080, 902),
        Row("no_opacity_1", "watermark:1:no/format:png", 1080, 902),
        Row("ea_opacity_1", "watermark:1:ea/format:png", 1080, 902),
        Row("so_opacity_1", "watermark:1:so/format:png", 1080, 902),
        Row("we_opacity_1", "watermark:1:we/format:png", 1080, 902),
        Row("nowe_opacity_1", "watermark:1:nowe/format:png", 1080, 902),
        Row("noea_opacity_1", "watermark:1:noea/format:png", 1080, 902),
        Row("sowe_opacity_1", "watermark:1:sowe/format:png", 1080, 902),
        Row("soea_opacity_1", "watermark:1:soea/format:png", 1080, 902),
        Row("re_opacity_1", "watermark:1:re/format:png", 1080, 902),
        Row("no_opacity_1_offset_50_0", "watermark:1:no:50/format:png", 1080, 902),
        Row("no_opacity_1_offset_0_50", "watermark:1:no::50/format:png", 1080, 902),
        Row("no_opacity_1_offset_50_50", "watermark:1:no:50:50/format:png", 1080, 902),
        Row("no_opacity_1_offset_50_50_dpr_0.5", "watermark:1:no:50:50/dpr:0.5/format:png", 540, 451),
        Row("no_opacity_1_offset_50_50_dpr_2", "watermark:1:no:50:50/dpr:2/format:png", 1080, 902),
        Row("re_opacity_1_offset_50_0", "watermark:1:re:50/format:png", 1080, 902),
        Row("re_opacity_1_offset_0_50", "watermark:1:re::50/format:png", 1080, 902),
        Row("re_opacity_1_offset_50_50", "watermark:1:re:50:50/format:png", 1080, 902),
        Row("re_opacity_1_offset_50_50_dpr_0.5", "watermark:1:re:50:50/dpr:0.5/format:png", 540, 451),
        Row("re_opacity_1_offset_50_50_dpr_2", "watermark:1:re:50:50/dpr:2/format:png", 1080, 902),
        Row("re_opacity_0", "watermark:0:re/format:png", 1080, 902),
        Row("re_opacity_0.5", "watermark:0.5:re/format:png", 1080, 902),
        Row("re_opacity_1#01", "watermark:1:re/format:png", 1080, 902),
        Row("re_opacity_1_scale_0.5", "watermark:1:re:::0.5/format:png", 1080, 902)
    ]

    static let watermarkAnimation: [Row] = [
        Row("nowe_opacity_0.5_offset_10_20_dpr_0.5", "watermark:0.5:nowe:10:20/dpr:0.5", 246, 115),
        Row("nowe_opacity_0.5_offset_10_20_dpr_2", "watermark:0.5:nowe:10:20/dpr:2", 492, 229)
    ]

    static let effects: [Row] = [
        Row("blur_10.000000", "blur:10.000000/sharpen:0.000000/pixelate:0", 400, 400),
        Row("sharpen_10.000000", "blur:0.000000/sharpen:10.000000/pixelate:0", 400, 400),
        Row("pixelate_10", "blur:0.000000/sharpen:0.000000/pixelate:10", 400, 400),
        Row("blur_10.000000_sharpen_10.000000_pixelate_10", "blur:10.000000/sharpen:10.000000/pixelate:10", 400, 400)
    ]

    static let colorspace: [Row] = [
        Row("8-bpp-png-srgb", "resize:fill:100:100/enlarge:1/format:png", 100, 100),
        Row("16-bpp-png-rgb16", "resize:fill:100:100/enlarge:1/format:png", 100, 100, source: png16),
        Row("16-bpp-png-jpeg-srgb", "resize:fill:100:100/enlarge:1/format:jpeg", 100, 100, source: png16),
        Row("8-bpp-tiff-srgb", "resize:fill:100:100/enlarge:1/format:png", 100, 100, result: at(36, 0), source: tiff8),
        Row("16-bpp-tiff-rgb16", "resize:fill:100:100/enlarge:1/format:png", 100, 100, result: at(36, 0), source: tiff16),
        Row("8-bpp-grayscale-png-bw", "resize:fill:100:100/enlarge:1/format:png", 100, 100, result: at(0, 17), source: png8Gray),
        Row("16-bpp-grayscale-png-grey16", "resize:fill:100:100/enlarge:1/format:png", 100, 100, source: png16Gray),
        Row("16-bpp-grayscale-png-jpeg-bw", "resize:fill:100:100/enlarge:1/format:jpeg", 100, 100, source: png16Gray),
        Row("8-bpp-grayscale-tiff-bw", "resize:fill:100:100/enlarge:1/format:png", 100, 100, result: at(0, 12), source: tiff8Gray),
        Row("16-bpp-grayscale-tiff-grey16", "resize:fill:100:100/enlarge:1/format:png", 100, 100, result: at(36, 0), source: tiff16Gray)
    ]

    static let linearColorspace: [Row] = [
        Row("16-bpp-linear-png-rgb16_linear", "resize:fill:100:100/enlarge:1/format:png", 100, 100),
        Row("32-bpp-linear-tiff-rgb16_linear", "resize:fill:100:100/enlarge:1/format:png", 100, 100, result: at(24, 0), source: tiff32Linear),
        Row("16-bpp-linear-png-jpeg-srgb_linear", "resize:fill:100:100/enlarge:1/format:jpeg", 100, 100),
        Row("8-bpp-png-jpeg-srgb_linear", "resize:fill:100:100/enlarge:1/format:jpeg", 100, 100, source: png8)
    ]

    static let downscaleHDR: [Row] = [
        Row("16-bpp-png-srgb_no_preserve_hdr", "resize:fill:100:100/enlarge:1/format:png", 100, 100),
        Row("16-bpp-tiff-srgb_no_preserve_hdr", "resize:fill:100:100/enlarge:1/format:png", 100, 100, result: at(36, 0), source: tiff16),
        Row("16-bpp-grayscale-png-bw_no_preserve_hdr", "resize:fill:100:100/enlarge:1/format:png", 100, 100, source: png16Gray),
        Row("16-bpp-grayscale-tiff-bw_no_preserve_hdr", "resize:fill:100:100/enlarge:1/format:png", 100, 100, result: at(36, 0), source: tiff16Gray)
    ]

    static let watermarkColorspace: [Row] = [
        Row(
            "8-bpp-wm-16-bpp-srgb", "resize:fill:100:100/enlarge:1/format:png/watermark:0.5", 100, 100,
            settings: ["IMGPROXY_WATERMARK_PATH": "test-images/png/16-bpp.png"]),
        Row(
            "8-bpp-wm-16-bpp-grayscale-srgb", "resize:fill:100:100/enlarge:1/format:png/watermark:0.5", 100, 100,
            settings: ["IMGPROXY_WATERMARK_PATH": "test-images/png/16-bpp-grayscale.png"]),
        Row(
            "8-bpp-grayscale-wm-16-bpp-grayscale-bw", "resize:fill:100:100/enlarge:1/format:png/watermark:0.5", 100, 100, result: at(0, 17),
            source: png8Gray, settings: ["IMGPROXY_WATERMARK_PATH": "test-images/png/16-bpp-grayscale.png"]),
        Row(
            "16-bpp-grayscale-wm-8-bpp-grayscale-grey16", "resize:fill:100:100/enlarge:1/format:png/watermark:0.5", 100, 100, source: png16Gray,
            settings: ["IMGPROXY_WATERMARK_PATH": "test-images/png/8-bpp-grayscale.png"]),
        Row(
            "16-bpp-grayscale-wm-16-bpp-rgb16", "resize:fill:100:100/enlarge:1/format:png/watermark:0.5", 100, 100, source: png16Gray,
            settings: ["IMGPROXY_WATERMARK_PATH": "test-images/png/16-bpp.png"]),
        Row(
            "16-bpp-grayscale-wm-8-bpp-rgb16", "resize:fill:100:100/enlarge:1/format:png/watermark:0.5", 100, 100, source: png16Gray,
            settings: ["IMGPROXY_WATERMARK_PATH": "test-images/png/8-bpp.png"])
    ]

    static let preserveHDROptionOverride: [Row] = [
        Row(
            "option-true-overrides-config-false", "resize:fill:100:100/enlarge:1/format:png/preserve_hdr:true", 100, 100,
            settings: ["IMGPROXY_PRESERVE_HDR": "false"]),
        Row(
            "option-false-overrides-config-true", "resize:fill:100:100/enlarge:1/format:png/preserve_hdr:false", 100, 100,
            settings: ["IMGPROXY_PRESERVE_HDR": "true"])
    ]
}
