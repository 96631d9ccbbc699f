#!/usr/bin/env python3
"""Drives the Fun House page in headless Chromium (Debian's chromium + chromium-driver,
Selenium from PyPI), as a person would: open the page on an image, search the catalogue, add a
filter, drag its slider, add, reorder, toggle and remove a second filter, wait for the preview,
then copy the command line and the recipe.

Writes into --out: preview.rgba (the preview canvas's pixels), result.json (sizes, the preview's
query, the copied texts, request counts), screenshot.png. The Swift test (CyanotypeServeTests,
BrowserTests) starts the server, runs this, and compares the pixels with the CLI's render.

Exit status: 0 done, 3 Selenium or Chromium missing (the test skips), 1 a failure (printed).
"""
import argparse
import base64
import json
import os
import shutil
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8080")
    ap.add_argument("--image", required=True, help="an image name under the served folder")
    ap.add_argument("--out", required=True, help="folder for the results")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.support.ui import Select
    except ImportError:
        print("selenium is not installed (python3 -m pip install selenium)", file=sys.stderr)
        return 3
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_path = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not browser or not driver_path:
        print("chromium or chromedriver is missing (apt-get install chromium chromium-driver)", file=sys.stderr)
        return 3

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,800",
                 "--force-device-scale-factor=1", "--force-color-profile=srgb", "--disable-extensions", "--no-first-run"]:
        options.add_argument(flag)
    # The driver from Debian, named explicitly: Selenium must not try to download one.
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_script_timeout(a.timeout)
    os.makedirs(a.out, exist_ok=True)
    result = {}
    try:
        def wait(condition, what, timeout=a.timeout):
            end = time.time() + timeout
            while time.time() < end:
                value = driver.execute_script(condition)
                if value:
                    return value
                error = driver.execute_script("return window.funhouse && window.funhouse.lastError")
                if error:
                    raise RuntimeError(f"while waiting for {what}: the page says {error}")
                time.sleep(0.05)
            raise RuntimeError(f"timed out waiting for {what}")

        def settled():
            wait("return window.funhouse && window.funhouse.settled()", "the preview")

        driver.get(a.url + "/#image=" + a.image)
        wait("return window.funhouse && window.funhouse.ready", "the page to start")
        settled()

        # The catalogue: search, then pick a filter.
        search = driver.find_element(By.ID, "search")
        search.send_keys("sepia")
        driver.find_element(By.CSS_SELECTOR, '.filter-item[data-name="sepiaTone"]').click()
        settled()

        # A second filter: add it, move it up, switch it off and on, remove it.
        search.clear()
        search.send_keys("exposure")
        driver.find_element(By.CSS_SELECTOR, '.filter-item[data-name="exposureAdjust"]').click()
        settled()
        driver.find_element(By.CSS_SELECTOR, '#chain li[data-index="1"] button[title="Up"]').click()
        order = driver.execute_script("return [...document.querySelectorAll('#chain li')].map(l => l.dataset.name)")
        if order != ["exposureAdjust", "sepiaTone"]:
            raise RuntimeError(f"reordering gave {order}")
        toggle = driver.find_element(By.CSS_SELECTOR, '#chain li[data-index="0"] .step-head input[type=checkbox]')
        toggle.click()
        settled()
        fragment_off = driver.execute_script("return location.hash")
        if "off=0" not in fragment_off:
            raise RuntimeError(f"the switched-off step is not in the URL: {fragment_off}")
        driver.find_element(By.CSS_SELECTOR, '#chain li[data-index="0"] button.remove').click()
        settled()

        # The slider: drag it with the mouse, then a few key presses; only the latest renders.
        before = driver.execute_script("return window.funhouse.requestsStarted()")
        changes_before = driver.execute_script("return window.funhouse.changes()")
        slider = driver.find_element(By.CSS_SELECTOR, '#chain li[data-name="sepiaTone"] input[type=range][data-key="inputIntensity"]')
        ActionChains(driver).click_and_hold(slider).move_by_offset(-10, 0).move_by_offset(5, 0).move_by_offset(10, 0).move_by_offset(15, 0).release().perform()
        slider.send_keys(Keys.ARROW_LEFT * 7)
        settled()
        after = driver.execute_script("return window.funhouse.requestsStarted()")
        changes = driver.execute_script("return window.funhouse.changes()") - changes_before
        slider_value = slider.get_attribute("value")

        info = driver.execute_script("return window.funhouse.lastPreview")
        fragment = driver.execute_script("return location.hash")
        pixels = driver.execute_script("""
            const c = document.getElementById('preview-canvas');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let s = ''; const step = 0x8000;
            for (let i = 0; i < d.length; i += step) s += String.fromCharCode.apply(null, d.subarray(i, i + step));
            return [c.width, c.height, btoa(s)];
        """)
        with open(os.path.join(a.out, "preview.rgba"), "wb") as f:
            f.write(base64.b64decode(pixels[2]))
        # What a person reads on the page: the step's title, the number beside the slider, the
        # size and time under the preview.
        shown = {
            "stepTitles": [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#chain li .step-head strong")],
            "sliderOutput": driver.find_element(By.CSS_SELECTOR, '#chain li[data-name="sepiaTone"] .control[data-key="inputIntensity"] output').text,
            "timing": driver.find_element(By.ID, "timing").text,
            "status": driver.find_element(By.ID, "status").text,
        }

        # The copy buttons, clicked: each puts its text in the box below them.
        copies = {}
        for kind in ["cli", "recipe", "instafilter", "swift", "url"]:
            driver.find_element(By.CSS_SELECTOR, f'button[data-copy="{kind}"]').click()
            copies[kind] = driver.find_element(By.ID, "copy-text").get_attribute("value")
        command, recipe, swift, url = copies["cli"], copies["recipe"], copies["swift"], copies["url"]
        histogram = driver.execute_script("return window.funhouse.histogram ? window.funhouse.histogram[3].reduce((a, b) => a + b, 0) : 0")

        # The plan, from the Explain button.
        driver.find_element(By.ID, "explain").click()
        plan = wait("const t = document.getElementById('plan').textContent; return t.includes('render') ? t : null", "the plan")

        # Before / after: the split shows the unfiltered picture on the left.
        driver.find_element(By.ID, "compare").click()
        wait("return !document.getElementById('split-line').hidden", "the before/after split")
        driver.save_screenshot(os.path.join(a.out, "screenshot.png"))

        # A LUT chosen from the list: the JSON recipe copied then carries it (issue #24).
        Select(driver.find_element(By.ID, "lut")).select_by_value("warmFilm")
        driver.find_element(By.CSS_SELECTOR, 'button[data-copy="recipe"]').click()
        recipe_with_lut = driver.find_element(By.ID, "copy-text").get_attribute("value")

        import shlex
        result = {
            "width": pixels[0], "height": pixels[1], "preview": info, "fragment": fragment,
            "command": command, "commandWords": shlex.split(command), "recipe": recipe, "recipeWithLUT": recipe_with_lut, "instafilter": copies["instafilter"], "swift": swift, "url": url,
            "requestsDuringSlider": after - before, "changesDuringSlider": changes, "sliderValue": slider_value, "histogramCount": histogram, "plan": plan,
            "shown": shown,
        }
        with open(os.path.join(a.out, "result.json"), "w") as f:
            json.dump(result, f, indent=2)
        return 0
    except Exception as e:  # noqa: BLE001 - everything the test should see
        try:
            driver.save_screenshot(os.path.join(a.out, "failure.png"))
        except Exception:  # noqa: BLE001
            pass
        print(f"funhouse-browser: {e}", file=sys.stderr)
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
