package render

import (
	"fmt"

	"github.com/g3n/engine/renderer"
)

// terrainShader is the shader program for terrain chunks: diffuse sunlight and
// ambient light on the vertex colour, computed per vertex (the ground is finely
// tessellated, and per-vertex lighting keeps software rendering fast), and distance
// haze that fades far ground into the sky's horizon colour.
const terrainShader = "treadline_terrain"

// terrainVertexSource is formatted with the haze start and full distances in meters.
const terrainVertexSource = `#include <attributes>
uniform mat4 ModelViewMatrix;
uniform mat3 NormalMatrix;
uniform mat4 MVP;
#include <lights>
#include <material>
out vec3 Lit;
out float Haze;
void main() {
    vec4 pos = ModelViewMatrix * vec4(VertexPosition, 1.0);
    vec3 n = normalize(NormalMatrix * VertexNormal);
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
    Lit = min(MatDiffuseColor * VertexColor * light, vec3(1.0));
    Haze = clamp((length(pos.xyz) - %.1f) / (%.1f - %.1f), 0.0, 0.85);
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

// Haze distances in meters: terrain closer than hazeStart is drawn clear, and the haze
// reaches its strongest at hazeFull.
const (
	hazeStart = 250.0
	hazeFull  = 900.0
)

// addShaders registers Treadline's shader programs with r.
func addShaders(r *renderer.Renderer) {
	h := skyHorizon
	r.AddShader(terrainShader+"_vertex", fmt.Sprintf(terrainVertexSource, hazeStart, hazeFull, hazeStart))
	r.AddShader(terrainShader+"_fragment", fmt.Sprintf(terrainFragmentSource, h.R, h.G, h.B))
	r.AddProgram(terrainShader, terrainShader+"_vertex", terrainShader+"_fragment")
}
