"""The CoDraw renderer: canvas size, sprite placement, flips, depth scaling, draw order, changes."""
from __future__ import annotations

import pytest
from PIL import Image

from corpora.codraw.data.render import draw_order, render_scene, scene_changes
from corpora.codraw.data.scenes import Clipart, identity_of

RED, BLUE = (255, 0, 0, 255), (0, 0, 255, 255)


@pytest.fixture
def clipart_folder(tmp_path):
    """Tiny clip art: a white background and 20x10 sprites, left half red, right half blue."""
    Image.new("RGBA", (500, 400), (255, 255, 255, 255)).save(tmp_path / "background.png")
    sprite = Image.new("RGBA", (20, 10), RED)
    sprite.paste(Image.new("RGBA", (10, 10), BLUE), (10, 0))
    for name in ("s_3s.png", "t_4s.png", "hb0_10s.png"):
        sprite.save(tmp_path / name)
    Image.new("RGBA", (40, 40), (0, 255, 0, 255)).save(tmp_path / "p_7s.png")
    return tmp_path


def clip(name, type_id, object_id, x, y, z=0, flip=0):
    return Clipart(identity_of(type_id, object_id), name, type_id, object_id, float(x), float(y), z, flip)


def test_a_sprite_is_centred_on_its_position(clipart_folder):
    image = render_scene([clip("t_4s.png", 7, 4, 100, 200)], clipart_folder)
    assert image.size == (500, 400)
    assert image.getpixel((91, 196)) == RED[:3]  # left half: x 90..99
    assert image.getpixel((108, 204)) == BLUE[:3]  # right half: x 100..109
    assert image.getpixel((111, 200)) == (255, 255, 255) and image.getpixel((100, 206)) == (255, 255, 255)


def test_flip_mirrors_the_sprite(clipart_folder):
    image = render_scene([clip("t_4s.png", 7, 4, 100, 200, flip=1)], clipart_folder)
    assert image.getpixel((91, 196)) == BLUE[:3] and image.getpixel((108, 204)) == RED[:3]


def test_depth_scales_the_sprite(clipart_folder):
    near = render_scene([clip("p_7s.png", 1, 7, 250, 200, z=0)], clipart_folder)
    far = render_scene([clip("p_7s.png", 1, 7, 250, 200, z=2)], clipart_folder)
    green = (0, 255, 0)
    assert near.getpixel((232, 200)) == green  # 40 px wide at z=0
    assert far.getpixel((232, 200)) != green and far.getpixel((242, 200)) == green  # 20 px (0.49) at z=2


def test_draw_order_sky_first_then_far_to_near_in_string_order(clipart_folder):
    tree_near = clip("p_7s.png", 1, 7, 100, 200, z=0)
    ball_far = clip("t_4s.png", 7, 4, 100, 200, z=2)
    sun_near = clip("s_3s.png", 0, 3, 100, 200, z=0)
    assert draw_order([tree_near, ball_far, sun_near]) == [sun_near, ball_far, tree_near]
    image = render_scene([tree_near, ball_far, sun_near], clipart_folder)
    assert image.getpixel((100, 200)) == (0, 255, 0)  # the near tree covers the sky and the far ball
    ball_near = clip("t_4s.png", 7, 4, 100, 200, z=0)
    image = render_scene([tree_near, ball_near], clipart_folder)  # same depth: string order, the ball last
    assert image.getpixel((95, 200)) == RED[:3]


def test_art_free_rendition_and_marked_changes():
    before = [clip("t_4s.png", 7, 4, 100, 300), clip("s_3s.png", 0, 3, 400, 50)]
    after = [clip("t_4s.png", 7, 4, 300, 300), clip("hb0_10s.png", 2, 10, 200, 250, flip=1)]
    changes = scene_changes(before, after)
    assert [(c.change, c.label) for c in changes] == [("moved", "soccer ball"), ("added", "boy · angry · kicking"), ("removed", "sun")]
    plain = render_scene(after, None)
    marked = render_scene(after, None, changes)
    assert plain.size == marked.size == (500, 400)
    assert plain.getpixel((5, 5)) != plain.getpixel((5, 395))  # sky above, grass below
    assert plain.getpixel((300, 300)) != plain.getpixel((5, 300))  # the ball is drawn
    red_ghost = marked.getpixel((400, 50))
    assert red_ghost[0] > red_ghost[1]  # the removed sun's ghost is reddish
    assert plain.getpixel((400, 50)) != red_ghost


@pytest.mark.shared
def test_real_clip_art_when_present(shared_data):
    folder = shared_data / "codraw" / "clipart"
    image = render_scene([clip("s_3s.png", 0, 3, 250, 100)], folder)
    assert image.getpixel((250, 100))[:2] == (255, 255) or image.getpixel((250, 100))[0] > 200  # the yellow sun
