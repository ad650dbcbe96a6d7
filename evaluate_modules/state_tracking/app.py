"""The metric's Space: evaluate's own widget over the module beside this file."""

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("state_tracking.py")
launch_gradio_widget(module)
