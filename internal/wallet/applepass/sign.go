package applepass

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/smallstep/pkcs7"
)

// Content types for serving a pass and a bundle of passes.
const (
	ContentType       = "application/vnd.apple.pkpass"
	BundleContentType = "application/vnd.apple.pkpasses"
)

// ErrBadImage is returned, wrapped with the file name, for an image that is not a PNG or whose
// name cannot be a file in the pass.
var ErrBadImage = errors.New("pass image must be a PNG with a plain file name")

// reservedNames are written by Sign itself; an image by these names would corrupt the pass.
var reservedNames = map[string]bool{"pass.json": true, "manifest.json": true, "signature": true}

// imageName allows "logo.png", "icon@2x.png" and localised "de.lproj/logo.png".
var imageName = regexp.MustCompile(`^([a-zA-Z_-]+\.lproj/)?[a-zA-Z0-9_@.-]+\.png$`)

// Sign returns the .pkpass for p: a zip of pass.json, the images, manifest.json with each
// file's SHA-1 and a detached PKCS#7 signature of the manifest by id, carrying the WWDR
// intermediate. Missing icon.png, icon@2x.png and logo.png are drawn in the pass's colours.
func Sign(id Identity, p Pass, images map[string][]byte) ([]byte, error) {
	if id.Certificate == nil || id.Key == nil {
		return nil, ErrMissingCertificate
	}
	if id.WWDR == nil {
		return nil, ErrMissingWWDR
	}
	// Wallet refuses a pass signed outside the certificate's validity; say so here instead.
	// The real clock, because the PKCS#7 library stamps signing-time with it too.
	if err := id.CheckValid(time.Now()); err != nil {
		return nil, fmt.Errorf("sign pass %q: %w", p.SerialNumber, err)
	}
	passJSON, err := p.JSON(id)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{"pass.json": passJSON}
	localized, err := passStrings(p)
	if err != nil {
		return nil, err
	}
	for name, data := range localized {
		files[name] = data
	}
	for name, data := range images {
		if reservedNames[name] || !imageName.MatchString(name) || strings.Contains(name, "..") {
			return nil, fmt.Errorf("image %q: %w", name, ErrBadImage)
		}
		if _, err := png.DecodeConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("image %q: %w (%v)", name, ErrBadImage, err)
		}
		files[name] = data
	}
	for name, img := range defaultImages {
		if _, ok := files[name]; !ok {
			data, err := drawImage(img, p.Colors)
			if err != nil {
				return nil, fmt.Errorf("draw %s: %w", name, err)
			}
			files[name] = data
		}
	}

	manifest := make(map[string]string, len(files))
	for name, data := range files {
		sum := sha1.Sum(data) // PassKit's manifest format is SHA-1, whatever the signature uses
		manifest[name] = hex.EncodeToString(sum[:])
	}
	manifestJSON, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode manifest.json: %w", err)
	}
	signature, err := signManifest(id, manifestJSON)
	if err != nil {
		return nil, fmt.Errorf("sign pass %q: %w", p.SerialNumber, err)
	}
	files["manifest.json"] = manifestJSON
	files["signature"] = signature
	return zipFiles(files)
}

// signManifest makes the detached CMS SignedData (DER) over manifest with id's certificate,
// the WWDR intermediate beside it and signing-time among the signed attributes.
func signManifest(id Identity, manifest []byte) ([]byte, error) {
	sd, err := pkcs7.NewSignedData(manifest)
	if err != nil {
		return nil, fmt.Errorf("start signature: %w", err)
	}
	// Per signature rather than pkcs7.SetDefaultDigestAlgorithm, which is process-wide.
	sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSHA256)
	// AddSignerChain adds content-type, message-digest and signing-time attributes itself.
	if err := sd.AddSignerChain(id.Certificate, id.Key, []*x509.Certificate{id.WWDR}, pkcs7.SignerInfoConfig{}); err != nil {
		return nil, fmt.Errorf("add signer: %w", err)
	}
	sd.Detach()
	der, err := sd.Finish()
	if err != nil {
		return nil, fmt.Errorf("finish signature: %w", err)
	}
	return der, nil
}

// SignBundle returns a .pkpasses bundle: a zip holding one signed .pkpass per pass, named by
// serial number, for a booking whose tickets are separate passes.
func SignBundle(id Identity, passes []Pass, images map[string][]byte) ([]byte, error) {
	if len(passes) == 0 {
		return nil, fmt.Errorf("bundle without passes: %w", ErrInvalidPass)
	}
	files := make(map[string][]byte, len(passes))
	for _, p := range passes {
		name := safeFileName(p.SerialNumber) + ".pkpass"
		if _, dup := files[name]; dup {
			return nil, fmt.Errorf("bundle has serial number %q twice: %w", p.SerialNumber, ErrInvalidPass)
		}
		data, err := Sign(id, p, images)
		if err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		files[name] = data
	}
	return zipFiles(files)
}

// safeFileName keeps a serial number usable as a zip entry name.
func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, path.Base(s))
}

// zipFiles writes files in name order, so the same pass gives the same bytes apart from the
// signature's time.
func zipFiles(files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return nil, fmt.Errorf("zip %s: %w", name, err)
		}
		if _, err := w.Write(files[name]); err != nil {
			return nil, fmt.Errorf("zip %s: %w", name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("finish zip: %w", err)
	}
	return buf.Bytes(), nil
}
