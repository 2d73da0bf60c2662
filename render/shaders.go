package render

import (
	"fmt"

	"github.com/g3n/engine/renderer"
)

// terrainShader is the shader program for vertex-coloured models (tanks): diffuse
// sunlight and ambient light on the vertex colour, computed per vertex (per-vertex
// lighting keeps software rendering fast), and distance haze that fades far things
// into the sky's horizon colour.
const terrainShader = "treadline_terrain"

// groundShader is the program for terrain chunks: terrainShader's lighting and haze,
// and per fragment the ground materials' detail patterns from the detail texture
// (ground.go), weighted by the vertex's material mix (VertexLayers).
const groundShader = "treadline_ground"

// lightChunk is GLSL both vertex shaders include after <lights>: the ambient and
// directional light reaching a surface of normal n, and the haze at view-space
// position pos. It is formatted with the haze start and full distances in meters.
const lightChunk = `vec3 vertexLight(vec3 n) {
    vec3 light = vec3(0.0);
#if AMB_LIGHTS>0
    for (int i = 0; i < AMB_LIGHTS; ++i) {
        light += AmbientLightColor[i];
    }
#endif
#if DIR_LIGHTS>0
    for (int i = 0; i < DIR_LIGHTS; ++i) {
        light += DirLightColor(i) * max(dot(n, normalize(DirLightPosition(i))), 0.0);
    }
#endif
    return light;
}

float haze(vec4 pos) {
    return clamp((length(pos.xyz) - %.1f) / (%.1f - %.1f), 0.0, 0.85);
}
`

// terrainVertexSource lights vertex-coloured models.
const terrainVertexSource = `#include <attributes>
uniform mat4 ModelViewMatrix;
uniform mat3 NormalMatrix;
uniform mat4 MVP;
#include <lights>
#include <material>
#include <treadline_light>
out vec3 Lit;
out float Haze;
void main() {
    vec4 pos = ModelViewMatrix * vec4(VertexPosition, 1.0);
    vec3 n = normalize(NormalMatrix * VertexNormal);
    vec3 light = vertexLight(n);
    Lit = min(MatDiffuseColor * VertexColor * light, vec3(1.0));
    Haze = haze(pos);
    gl_Position = MVP * vec4(VertexPosition, 1.0);
}
`

// terrainFragmentSource is formatted with the haze colour (r, g, b).
const terrainFragmentSource = `precision highp float;
in vec3 Lit;
in float Haze;
out vec4 FragColor;
void main() {
    FragColor = vec4(mix(Lit, vec3(%.4f, %.4f, %.4f), Haze), 1.0);
}
`

// groundVertexSource is terrainVertexSource with the world position on the ground
// plane and the material weights passed on.
const groundVertexSource = `#include <attributes>
in vec4 VertexLayers;
uniform mat4 ModelViewMatrix;
uniform mat3 NormalMatrix;
uniform mat4 MVP;
#include <lights>
#include <material>
#include <treadline_light>
out vec3 Lit;
out float Haze;
out vec2 Ground;
out vec4 Layers;
void main() {
    vec4 pos = ModelViewMatrix * vec4(VertexPosition, 1.0);
    vec3 n = normalize(NormalMatrix * VertexNormal);
    vec3 light = vertexLight(n);
    Lit = MatDiffuseColor * VertexColor * light;
    Haze = haze(pos);
    Ground = VertexPosition.xz;
    Layers = VertexLayers;
    gl_Position = MVP * vec4(VertexPosition, 1.0);
}
`

// groundFragmentSource is formatted with the detail tile length (meters) and the
// haze colour (r, g, b).
const groundFragmentSource = `precision highp float;
#include <material>
in vec3 Lit;
in float Haze;
in vec2 Ground;
in vec4 Layers;
out vec4 FragColor;
void main() {
    vec4 fine = texture(MatTexture[0], Ground * (1.0 / %.1f));
    float d = dot(Layers, fine);
    // Grass turns a little yellower in its sparse patches; everything takes its
    // pattern's light and dark.
    vec3 hue = vec3(1.0) + Layers.x * (0.5 - fine.r) * vec3(0.22, 0.02, -0.18);
    vec3 c = min(Lit * hue * (0.66 + 0.68 * d), vec3(1.0));
    FragColor = vec4(mix(c, vec3(%.4f, %.4f, %.4f), Haze), 1.0);
}
`

// imageShader draws a HUD image panel (imagePanel): its texture, texel for pixel,
// with none of the general panel shader's borders, paddings, clipping and blending
// arithmetic, which a software renderer pays for at every pixel of a large panel.
const imageShader = "treadline_image"

const imageVertexSource = `#include <attributes>
uniform mat4 ModelMatrix;
out vec2 FragTexcoord;
void main() {
    FragTexcoord = vec2(VertexTexcoord.x, 1.0 - VertexTexcoord.y);
    gl_Position = ModelMatrix * vec4(VertexPosition.xyz, 1.0);
}
`

const imageFragmentSource = `precision highp float;
uniform sampler2D MatTexture;
in vec2 FragTexcoord;
out vec4 FragColor;
void main() {
    FragColor = texture(MatTexture, FragTexcoord);
}
`

// Haze distances in meters: terrain closer than hazeStart is drawn clear, and the haze
// reaches its strongest at hazeFull.
const (
	hazeStart = 250.0
	hazeFull  = 900.0
)

// addShaders registers Treadline's shader programs with r.
func addShaders(r *renderer.Renderer) {
	h := skyHorizon
	r.AddChunk("treadline_light", fmt.Sprintf(lightChunk, hazeStart, hazeFull, hazeStart))
	r.AddShader(terrainShader+"_vertex", terrainVertexSource)
	r.AddShader(terrainShader+"_fragment", fmt.Sprintf(terrainFragmentSource, h.R, h.G, h.B))
	r.AddProgram(terrainShader, terrainShader+"_vertex", terrainShader+"_fragment")
	r.AddShader(groundShader+"_vertex", groundVertexSource)
	r.AddShader(groundShader+"_fragment", fmt.Sprintf(groundFragmentSource, detailTile, h.R, h.G, h.B))
	r.AddProgram(groundShader, groundShader+"_vertex", groundShader+"_fragment")
	r.AddShader(imageShader+"_vertex", imageVertexSource)
	r.AddShader(imageShader+"_fragment", imageFragmentSource)
	r.AddProgram(imageShader, imageShader+"_vertex", imageShader+"_fragment")
}
