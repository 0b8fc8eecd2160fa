"""How the site's forms render their fields."""

from django.forms.renderers import TemplatesSetting


class FormRenderer(TemplatesSetting):
    """The project's templates (TEMPLATES), with every field drawn by templates/forms/field.html:
    label, widget, help and errors, the last two under the ids that Django's widgets name in
    aria-describedby ({id}_helptext, {id}_error)."""

    field_template_name = "forms/field.html"
